"""Stand-in for hf_gradio.cli: the names Gradio 6 imports.

Gradio 6 builds every /info reply with generate_cli_snippet (a code sample per endpoint
for the `hf` command line), so that one answers with a placeholder text per endpoint;
the rest raise.
"""
from _rivulet_stub import function

for _name in ("_condense_info", "info", "predict"):
    globals()[_name] = function("hf_gradio.cli", _name)


def generate_cli_snippet(named_endpoints):
    return {name: "# no CLI snippet: hf_gradio is a Rivulet test stand-in" for name in named_endpoints}
