"""Stand-in for huggingface_hub (not packaged in Debian 13): just the names Gradio imports."""
import enum

from _rivulet_stub import function, klass

from . import constants, errors, hf_api, inference, utils  # noqa: F401

__version__ = "0.0.0+rivulet-stand-in"
_M = "huggingface_hub"


class SpaceStage(str, enum.Enum):
    NO_APP_FILE = "NO_APP_FILE"
    CONFIG_ERROR = "CONFIG_ERROR"
    BUILDING = "BUILDING"
    BUILD_ERROR = "BUILD_ERROR"
    RUNNING = "RUNNING"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    PAUSED = "PAUSED"


class SpaceHardware(str, enum.Enum):
    CPU_BASIC = "cpu-basic"
    CPU_UPGRADE = "cpu-upgrade"


HfApi = klass(_M, "HfApi")
HfFolder = klass(_M, "HfFolder")
InferenceClient = klass(_M, "InferenceClient")
ImageClassificationOutputElement = klass(_M, "ImageClassificationOutputElement")
CommitOperationAdd = klass(_M, "CommitOperationAdd")

for _name in ("whoami", "get_token", "interpreter_login", "login", "logout", "space_info",
              "hf_hub_download", "snapshot_download", "create_repo", "upload_file",
              "upload_folder", "duplicate_space", "get_space_runtime", "add_space_secret",
              "get_full_repo_name", "request_space_hardware", "metadata_load",
              "metadata_save", "metadata_update", "hf_hub_url"):
    globals()[_name] = function(_M, _name)
