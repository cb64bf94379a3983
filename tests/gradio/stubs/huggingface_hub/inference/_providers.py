"""Stand-in for huggingface_hub.inference._providers."""
PROVIDER_T = str
