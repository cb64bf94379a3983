"""Stand-in for huggingface_hub.errors."""
from _rivulet_stub import error

_M = "huggingface_hub.errors"
HFValidationError = error(_M, "HFValidationError")
HfHubHTTPError = error(_M, "HfHubHTTPError")
RepositoryNotFoundError = error(_M, "RepositoryNotFoundError")
EntryNotFoundError = error(_M, "EntryNotFoundError")
