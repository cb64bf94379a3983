#!/usr/bin/env python3
"""Rivulet's scenario test app (issue 40, item 2): endpoints for a run of several scenarios.

    python3 scenario_app.py scenarios --port PORT [--logdir DIR]

Run by cases_scenarios.py on Gradio 4.44, 5.49 and 6.25. Endpoints:
  echo      "echo: TEXT" after 20 ms
  reverse   TEXT reversed after 20 ms
  remember  a chat whose memory is a gr.State (kept by Gradio per session, sent as null):
            "Turn N of this session. You said “MESSAGE”; before that, “PREVIOUS”." (on turn 1
            "…; nothing before."), the words of the embedded server's session_chat
"""
import argparse
import sys
import time

# Gradio 6.25 reads a status name that Starlette 0.46 (Debian 13) does not have yet.
import starlette.status

if not hasattr(starlette.status, "HTTP_422_UNPROCESSABLE_CONTENT"):
    starlette.status.HTTP_422_UNPROCESSABLE_CONTENT = 422

import gradio as gr  # noqa: E402


def echo(text):
    time.sleep(0.02)
    return f"echo: {text}"


def reverse(text):
    time.sleep(0.02)
    return text[::-1]


def remember(message, memory):
    turns = (memory or {}).get("turns", 0) + 1
    previous = (memory or {}).get("last")
    before = f"before that, “{previous}”." if previous is not None else "nothing before."
    return (f"Turn {turns} of this session. You said “{message}”; {before}",
            {"turns": turns, "last": message})


def build():
    with gr.Blocks() as demo:
        text = gr.Textbox(label="text")
        out = gr.Textbox(label="out")
        gr.Button("echo").click(echo, text, out, api_name="echo")
        gr.Button("reverse").click(reverse, text, out, api_name="reverse")
        memory = gr.State(None)
        reply = gr.Textbox(label="reply")
        gr.Button("remember").click(remember, [text, memory], [reply, memory],
                                    api_name="remember")
    return demo


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("app", choices=["scenarios"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--logdir", help="accepted like rivulet_apps.py's; nothing is logged")
    args = parser.parse_args()
    print(f"gradio {gr.__version__}: scenario app on 127.0.0.1:{args.port}", file=sys.stderr,
          flush=True)
    demo = build()
    demo.queue(default_concurrency_limit=8)
    demo.launch(server_name="127.0.0.1", server_port=args.port, _frontend=False, quiet=True,
                show_error=True)


if __name__ == "__main__":
    main()
