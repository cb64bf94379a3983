"""Stand-in for huggingface_hub.utils."""
from _rivulet_stub import function

from ..errors import EntryNotFoundError, HfHubHTTPError, RepositoryNotFoundError  # noqa: F401
from . import _telemetry  # noqa: F401

send_telemetry = function("huggingface_hub.utils", "send_telemetry")
get_session = function("huggingface_hub.utils", "get_session")


def build_hf_headers(token=None, library_name=None, library_version=None, **kwargs):
    """gradio_client builds its request headers with this on every Client(); no Hub token here."""
    if token:
        raise ValueError("the huggingface_hub stand-in has no Hub tokens")
    agent = f"{library_name}/{library_version}" if library_name else "unknown/None"
    return {"user-agent": agent}
