"""The old import name of python-multipart, which Gradio 4.44 still uses."""
from python_multipart import *  # noqa: F401,F403
from python_multipart import __version__  # noqa: F401
