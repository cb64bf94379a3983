"""Stand-in for huggingface_hub.utils._telemetry."""
from _rivulet_stub import function

_send_telemetry_in_thread = function("huggingface_hub.utils._telemetry", "_send_telemetry_in_thread")
