"""Stand-in for huggingface_hub.constants."""
import os

HF_HOME = os.path.join(os.path.expanduser("~"), ".cache", "huggingface")
