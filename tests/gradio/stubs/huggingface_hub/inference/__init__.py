"""Stand-in for huggingface_hub.inference."""
