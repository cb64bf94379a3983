"""Stand-in for ffmpy (not packaged in Debian 13; Gradio 6 vendors it)."""
from _rivulet_stub import error, klass

FFmpeg = klass("ffmpy", "FFmpeg")
FFprobe = klass("ffmpy", "FFprobe")
FFRuntimeError = error("ffmpy", "FFRuntimeError")
