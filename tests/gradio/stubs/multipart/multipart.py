"""The old import name of python_multipart.multipart, which Gradio 4.44 still uses."""
from python_multipart.multipart import *  # noqa: F401,F403
from python_multipart.multipart import parse_options_header  # noqa: F401
