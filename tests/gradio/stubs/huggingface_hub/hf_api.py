"""Stand-in for huggingface_hub.hf_api."""
from _rivulet_stub import klass

SpaceInfo = klass("huggingface_hub.hf_api", "SpaceInfo")
