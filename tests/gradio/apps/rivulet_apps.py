#!/usr/bin/env python3
"""Rivulet's own Gradio test apps, for Gradio 4.44, 5.49 and 6.25.

    python3 rivulet_apps.py APP --port PORT --logdir DIR

APP is one of:
  main   every endpoint the suite checks, launched with launch() on 127.0.0.1
  sub    a small app mounted under /sub of a FastAPI app (mount_gradio_app), whose
         queue holds at most 3 waiting jobs (HTTP 503 "queue full" beyond that)
  auth   a small app launched with auth=(user, password) (RIVULET_GRADIO_AUTH, "user:pass")

The server-side facts the suite compares with Rivulet's view are appended to files in
DIR: batches.log (one line per call of the batch function: its size) and steps.log (one
line per step of the cancellable generator).
"""
import argparse
import hashlib
import inspect
import os
import sys
import threading
import time

# Gradio 6.25 reads a status name that Starlette 0.46 (Debian 13) does not have yet.
import starlette.status

if not hasattr(starlette.status, "HTTP_422_UNPROCESSABLE_CONTENT"):
    starlette.status.HTTP_422_UNPROCESSABLE_CONTENT = 422

import gradio as gr  # noqa: E402
import numpy as np  # noqa: E402

LOGDIR = "."
_log_lock = threading.Lock()


def log_line(name, text):
    with _log_lock, open(os.path.join(LOGDIR, name), "a", encoding="utf-8") as f:
        f.write(text + "\n")


def picture(seed, size=48, height=None):
    """A small deterministic RGB picture, size wide and height (default: size) high."""
    y, x = np.mgrid[0:(height or size), 0:size]
    r = (x * 5 + seed * 17) % 256
    g = (y * 5 + seed * 29) % 256
    b = ((x + y) * 3 + seed * 7) % 256
    return np.stack([r, g, b], axis=-1).astype(np.uint8)


def chatbot(**kwargs):
    """A Chatbot in the messages format: Gradio 4/5 need type="messages"; 6 has no other."""
    if "type" in inspect.signature(gr.Chatbot.__init__).parameters:
        kwargs["type"] = "messages"
    return gr.Chatbot(**kwargs)


# --- the endpoints ------------------------------------------------------------------------

def batch_echo(texts):
    log_line("batches.log", str(len(texts)))
    time.sleep(0.01)
    return [[f"echo: {t}" for t in texts]]


def stream_text(prompt, tokens, delay):
    text = prompt
    for i in range(int(tokens)):
        text += f" tok{i + 1}"
        time.sleep(float(delay))
        yield text


def fake_image(steps, progress=gr.Progress()):
    steps = int(steps)
    for i in progress.tqdm(range(steps), desc="denoising"):
        time.sleep(0.05)
        yield picture(i)


def rapid(count):
    text = ""
    for i in range(int(count)):
        text += f"{i}\n"
        yield text


def predict(name):
    return f"Hello, {name}!"


def fail(text):
    raise gr.Error(f"refused: {text}")


def notify(text):
    gr.Info(f"info about {text}")
    gr.Warning(f"careful with {text}")
    return f"notified {text}"


def no_queue(text):
    return text.upper()


def chat(message, history):
    history = list(history or [])
    history.append({"role": "user", "content": message})
    history.append({"role": "assistant", "content": f"You said: {message}"})
    return history


def gallery(count):
    return [(picture(i), f"picture {i}") for i in range(int(count))]


def webp_gallery(count, delay):
    """A picture per step, each wider than the last, and a gallery that gains an item per
    step (item k is 40 + 8k pixels square): both sent as WebP, for the window case."""
    items = []
    for i in range(int(count)):
        time.sleep(float(delay))
        items.append((picture(i, 40 + 8 * i), f"item {i + 1}"))
        yield picture(i, 64 + 16 * i, 48), list(items)


def file_info(path):
    with open(path, "rb") as f:
        data = f.read()
    return f"{os.path.basename(path)} {len(data)} {hashlib.sha256(data).hexdigest()}"


def image_info(image):
    return f"{image.width}x{image.height} {image.mode}"


def counter(text, count):
    count = (count or 0) + 1
    return f"{text} #{count}", count


def slow_steps(tag, steps):
    log_line("steps.log", f"{tag} start")
    for i in range(int(steps)):
        log_line("steps.log", f"{tag} step {i}")
        time.sleep(0.25)
        yield f"{tag} {i}"
    log_line("steps.log", f"{tag} end")


def slow_one(text):
    time.sleep(1.0)
    return f"slow: {text}"


def sub_predict(name):
    return f"sub: {name}"


# --- the apps ---------------------------------------------------------------------------

def build_main():
    with gr.Blocks() as demo:
        t_in, t_out = gr.Textbox(), gr.Textbox()
        gr.Button().click(batch_echo, t_in, t_out, api_name="batch_echo", batch=True,
                          max_batch_size=16)

        prompt, tokens, delay, s_out = gr.Textbox(), gr.Number(value=20), gr.Number(value=0.02), gr.Textbox()
        gr.Button().click(stream_text, [prompt, tokens, delay], s_out, api_name="stream_text")

        steps, image = gr.Number(value=5), gr.Image()
        gr.Button().click(fake_image, steps, image, api_name="fake_image")

        count, r_out = gr.Number(value=1000), gr.Textbox()
        gr.Button().click(rapid, count, r_out, api_name="rapid")

        name, p_out = gr.Textbox(), gr.Textbox()
        gr.Button().click(predict, name, p_out, api_name="predict")

        f_in, f_out = gr.Textbox(), gr.Textbox()
        gr.Button().click(fail, f_in, f_out, api_name="fail")

        n_in, n_out = gr.Textbox(), gr.Textbox()
        gr.Button().click(notify, n_in, n_out, api_name="notify")

        q_in, q_out = gr.Textbox(), gr.Textbox()
        gr.Button().click(no_queue, q_in, q_out, api_name="no_queue", queue=False)

        message, history = gr.Textbox(), chatbot()
        gr.Button().click(chat, [message, history], history, api_name="chat")

        g_count, g_out = gr.Number(value=3), gr.Gallery()
        gr.Button().click(gallery, g_count, g_out, api_name="gallery")

        w_count, w_delay = gr.Number(value=4), gr.Number(value=0.4)
        w_image, w_gallery = gr.Image(format="webp"), gr.Gallery(format="webp")
        gr.Button().click(webp_gallery, [w_count, w_delay], [w_image, w_gallery],
                          api_name="webp_gallery")

        file_in, fi_out = gr.File(type="filepath"), gr.Textbox()
        gr.Button().click(file_info, file_in, fi_out, api_name="file_info")

        image_in, ii_out = gr.Image(type="pil"), gr.Textbox()
        gr.Button().click(image_info, image_in, ii_out, api_name="image_info")

        c_in, c_state, c_out = gr.Textbox(), gr.State(0), gr.Textbox()
        gr.Button().click(counter, [c_in, c_state], [c_out, c_state], api_name="counter",
                          concurrency_limit=1)

        tag, n_steps, st_out = gr.Textbox(), gr.Number(value=8), gr.Textbox()
        gr.Button().click(slow_steps, [tag, n_steps], st_out, api_name="slow_steps",
                          concurrency_limit=1)
    return demo


def build_sub():
    with gr.Blocks() as demo:
        name, out = gr.Textbox(), gr.Textbox()
        gr.Button().click(sub_predict, name, out, api_name="predict")
        s_in, s_out = gr.Textbox(), gr.Textbox()
        gr.Button().click(slow_one, s_in, s_out, api_name="slow_one", concurrency_limit=1)
    demo.queue(max_size=3)
    return demo


def build_auth():
    with gr.Blocks() as demo:
        name, out = gr.Textbox(), gr.Textbox()
        gr.Button().click(predict, name, out, api_name="predict")
    return demo


def main():
    global LOGDIR
    parser = argparse.ArgumentParser()
    parser.add_argument("app", choices=["main", "sub", "auth"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--logdir", required=True)
    args = parser.parse_args()
    LOGDIR = args.logdir
    os.makedirs(LOGDIR, exist_ok=True)
    print(f"gradio {gr.__version__}: app {args.app} on 127.0.0.1:{args.port}", file=sys.stderr,
          flush=True)

    if args.app == "sub":
        import fastapi
        import uvicorn

        app = fastapi.FastAPI()
        app = gr.mount_gradio_app(app, build_sub(), path="/sub")
        uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
        return

    demo = build_main() if args.app == "main" else build_auth()
    demo.queue()
    auth = None
    if args.app == "auth":
        user, _, password = os.environ.get("RIVULET_GRADIO_AUTH", "rivulet:s3cret").partition(":")
        auth = (user, password)
    demo.launch(server_name="127.0.0.1", server_port=args.port, _frontend=False, quiet=True,
                show_error=True, auth=auth)


if __name__ == "__main__":
    main()
