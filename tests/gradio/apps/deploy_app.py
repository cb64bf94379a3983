#!/usr/bin/env python3
"""The app behind nginx for tests/gradio/cases_deploy.py (Gradio 4.44, 5.49 and 6.25).

    python3 deploy_app.py --port PORT --root-path /gradio-demo

Launched as Gradio's nginx guide says, with root_path set to the sub-path nginx serves
it under. Endpoints:
  tick      a generator: N updates, DELAY seconds apart (a stream to watch)
  quiet     sleeps SECONDS, then returns: nothing on the stream meanwhile but heartbeats
  echo      a plain function that takes a little time (bursts and user loads)
  batch_echo  a batch function (max_batch_size 16), for 1,000-job bursts
"""
import argparse
import sys
import time

# Gradio 6.25 reads a status name that Starlette 0.46 (Debian 13) does not have yet.
import starlette.status

if not hasattr(starlette.status, "HTTP_422_UNPROCESSABLE_CONTENT"):
    starlette.status.HTTP_422_UNPROCESSABLE_CONTENT = 422

import gradio as gr  # noqa: E402


def tick(count, delay):
    text = ""
    for i in range(int(count)):
        time.sleep(float(delay))
        text += f"{i} "
        yield text


def quiet(seconds):
    time.sleep(float(seconds))
    return f"woke after {float(seconds):g} s"


def echo(text):
    time.sleep(0.05)
    return f"echo: {text}"


def batch_echo(texts):
    time.sleep(0.01)
    return [[f"echo: {t}" for t in texts]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--root-path", required=True)
    args = parser.parse_args()
    print(f"gradio {gr.__version__}: deploy app on 127.0.0.1:{args.port} under {args.root_path}",
          file=sys.stderr, flush=True)
    with gr.Blocks() as demo:
        n, d, t_out = gr.Number(value=30), gr.Number(value=0.05), gr.Textbox()
        gr.Button().click(tick, [n, d], t_out, api_name="tick")
        s, q_out = gr.Number(value=5), gr.Textbox()
        gr.Button().click(quiet, s, q_out, api_name="quiet")
        e_in, e_out = gr.Textbox(), gr.Textbox()
        gr.Button().click(echo, e_in, e_out, api_name="echo", concurrency_limit=8)
        b_in, b_out = gr.Textbox(), gr.Textbox()
        gr.Button().click(batch_echo, b_in, b_out, api_name="batch_echo", batch=True,
                          max_batch_size=16)
    demo.queue(default_concurrency_limit=8)
    demo.launch(server_name="127.0.0.1", server_port=args.port, _frontend=False, quiet=True,
                root_path=args.root_path)


if __name__ == "__main__":
    main()
