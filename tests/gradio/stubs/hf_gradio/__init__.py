"""Stand-in for hf_gradio (not packaged in Debian 13)."""
