#!/usr/bin/env python3
"""Rivulet's second set of Gradio test apps (issue 23): the shapes real apps send.

    python3 engine_apps.py engine --port PORT [--logdir DIR]

One app, run by cases_apps.py, on Gradio 4.44, 5.49 and 6.25 (the 6.x-only parts are
added only there). Launched with GRADIO_PROFILING=1 on 6.25, it serves its per-event
timings. Endpoints:
  image_info     an image in, "WIDTHxHEIGHT mean R,G,B" out
  file_info      a file in (a path), "NAME BYTES FIRST-LINE" out
  cached_square  @gr.cache (6.12+): x*x after 0.3 s, answered from the cache next time
  hidden         api_visibility="private" (6.x): not offered to API clients
  undocumented   api_visibility="undocumented" (6.x)
  success_log    gr.Success (6.x) and gr.Info, then the text
  update_value   gr.update(value=..., visible=True)
  plot           a matplotlib figure in a gr.Plot
  five           image, text, JSON, label and markdown outputs
  chat           a ChatInterface(multimodal=True): says what it got
  count_up       a generator: "1", "1 2", … up to n
  describe       an Interface with image examples (examples=): a red 64x48 and a blue 32x24
                 picture, each with a note; "NOTE: WIDTHxHEIGHT mean R,G,B" out
"""
import argparse
import os
import sys
import tempfile
import time

# Gradio 6.25 reads a status name that Starlette 0.46 (Debian 13) does not have yet.
import starlette.status

if not hasattr(starlette.status, "HTTP_422_UNPROCESSABLE_CONTENT"):
    starlette.status.HTTP_422_UNPROCESSABLE_CONTENT = 422

import gradio as gr  # noqa: E402
import numpy as np  # noqa: E402

SIX = int(gr.__version__.split(".")[0]) >= 6


def image_info(image):
    if image is None:
        return "no image"
    h, w = image.shape[:2]
    mean = image.reshape(-1, image.shape[-1])[:, :3].mean(axis=0).round().astype(int)
    return f"{w}x{h} mean {mean[0]},{mean[1]},{mean[2]}"


def file_info(path):
    if path is None:
        return "no file"
    with open(path, "rb") as f:
        data = f.read()
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace")
    return f"{os.path.basename(path)} {len(data)} {first}"


def describe(image, note):
    return f"{note}: {image_info(image)}"


def example_pictures():
    """The Interface's example images, written where Gradio accepts example files from."""
    from PIL import Image
    folder = tempfile.mkdtemp(prefix="rivulet-examples-")
    paths = []
    for name, size, colour in (("red", (64, 48), (220, 40, 40)), ("blue", (32, 24), (40, 60, 220))):
        path = os.path.join(folder, f"{name}.png")
        Image.new("RGB", size, colour).save(path)
        paths.append(path)
    return paths


def square(x):
    time.sleep(0.3)
    return x * x


def hidden(text):
    return "private " + text


def undocumented(text):
    return "undocumented " + text


def success_log(text):
    gr.Info("working on " + text)
    if not hasattr(gr, "Success"):   # Gradio 4 has none
        return "logged " + text
    gr.Success("done with " + text)
    return "logged " + text + " with success"


def update_value(text):
    return gr.update(value="updated " + text, visible=True)


def plot(n):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    xs = list(range(int(n)))
    ax.plot(xs, [x * x for x in xs], color="#d62728")
    ax.set_title(f"squares to {int(n)}")
    return fig


def five(seed):
    s = int(seed)
    y, x = np.mgrid[0:32, 0:32]
    img = np.stack([(x * 8 + s) % 256, (y * 8) % 256, np.full_like(x, 200)], axis=-1).astype(np.uint8)
    return (img, f"text {s}", {"seed": s, "even": s % 2 == 0},
            {"even" if s % 2 == 0 else "odd": 0.9, "other": 0.1}, f"## Seed {s}\n*markdown*")


def chat(message, history):
    text = message.get("text", "") if isinstance(message, dict) else str(message)
    files = message.get("files", []) if isinstance(message, dict) else []
    names = [os.path.basename(f if isinstance(f, str) else f.get("path", "")) for f in files]
    return f"you said {text!r} with {len(names)} file(s)" + (": " + ", ".join(names) if names else "")


def count_up(n):
    words = []
    for k in range(1, int(n) + 1):
        words.append(str(k))
        time.sleep(0.02)
        yield " ".join(words)


def paced(tokens, first_delay, gap, pause_after, pause):
    """A known schedule, kept from the call's start (no drift): token k (from 0) at
    first_delay + k * gap, and pause more from token pause_after (1-based) on."""
    start = time.monotonic()
    words = []
    for k in range(int(tokens)):
        at = start + float(first_delay) + k * float(gap)
        if int(pause_after) > 0 and k >= int(pause_after):
            at += float(pause)
        time.sleep(max(0.0, at - time.monotonic()))
        words.append(f"w{k + 1}")
        yield " ".join(words)


def greet_times(name, times):
    return " ".join([f"hi {name}"] * int(times))


def shout(word):
    return word.upper() + "!"


def typed_add(a: int, b: int = 2) -> int:
    """Adds two integers."""
    return a + b


def typed_greet(name: str, excited: bool = False, ratio: float = 0.5,
                tags: list[str] = []) -> tuple[str, int]:  # noqa: B006 (read only)
    """Greets someone by name."""
    return ("Hello " + name + ("!" if excited else ""), len(tags))


def build_server():
    """Gradio 6's Server mode: no Blocks, no components, only typed API endpoints."""
    server = gr.Server()
    server.api(typed_add, name="typed_add")
    server.api(typed_greet, name="typed_greet")
    return server


def build():
    red, blue = example_pictures()
    # An Interface's examples= (image examples), rendered in the Blocks below.
    iface = gr.Interface(describe, [gr.Image(type="numpy", label="picture"), gr.Textbox(label="note")],
                         gr.Textbox(label="description"),
                         examples=[[red, "red one"], [blue, "blue one"]], api_name="describe")
    with gr.Blocks() as demo:
        # gr.api (Gradio 5+): endpoints typed by their functions' hints, no components.
        if hasattr(gr, "api"):
            gr.api(typed_add, api_name="typed_add")
            gr.api(typed_greet, api_name="typed_greet")

        img = gr.Image(type="numpy")
        img_out = gr.Textbox()
        gr.Button("image").click(image_info, img, img_out, api_name="image_info")

        fin = gr.File(type="filepath")
        fout = gr.Textbox()
        gr.Button("file").click(file_info, fin, fout, api_name="file_info")

        num = gr.Number()
        sq = gr.Number()
        fn = gr.cache(square) if hasattr(gr, "cache") else square
        gr.Button("square").click(fn, num, sq, api_name="cached_square")

        text = gr.Textbox()
        out = gr.Textbox()
        if SIX:
            gr.Button("hidden").click(hidden, text, out, api_name="hidden", api_visibility="private")
            gr.Button("undoc").click(undocumented, text, out, api_name="undocumented",
                                     api_visibility="undocumented")
        gr.Button("log").click(success_log, text, out, api_name="success_log")
        upd = gr.Textbox(visible=False)
        gr.Button("update").click(update_value, text, upd, api_name="update_value")

        n = gr.Number(value=5)
        p = gr.Plot()
        gr.Button("plot").click(plot, n, p, api_name="plot")

        seed = gr.Number(value=1)
        outs = [gr.Image(), gr.Textbox(label="caption"), gr.JSON(), gr.Label(), gr.Markdown()]
        gr.Button("five").click(five, seed, outs, api_name="five")

        cn = gr.Number(value=5)
        ct = gr.Textbox()
        gr.Button("count").click(count_up, cn, ct, api_name="count_up")

        # Examples (gr.Examples): a greeting's name and count, labelled; the same inputs'
        # examples again with cached outputs (cache_examples=True) on a function of its own.
        en = gr.Textbox(label="name")
        ek = gr.Number(value=1, label="times", precision=0)
        eo = gr.Textbox(label="greeting")
        gr.Button("greet").click(greet_times, [en, ek], eo, api_name="greet_times")
        gr.Examples([["Ada", 2], ["Grace", 3], ["Linus", 1]], [en, ek], example_labels=
                    ["two for Ada", "three for Grace", "one for Linus"])
        cn2 = gr.Textbox(label="word")
        co2 = gr.Textbox(label="shout")
        gr.Button("shout").click(shout, cn2, co2, api_name="shout")
        gr.Examples([["hey"], ["ho"]], cn2, co2, fn=shout, cache_examples=True)

        pin = [gr.Number(value=12), gr.Number(value=0.3), gr.Number(value=0.04),
               gr.Number(value=6), gr.Number(value=1.2)]
        pout = gr.Textbox()
        gr.Button("paced").click(paced, pin, pout, api_name="paced")
        # One job at a time: each job's first update waits behind the others.
        gr.Button("paced_one").click(paced, pin, pout, api_name="paced_one", concurrency_limit=1)

        # gr.render: N textboxes and a button, laid out anew by each job (api_name "apply").
        rn = gr.Number(value=2, label="boxes", precision=0)
        rb = gr.Button("render")

        @gr.render(inputs=rn, triggers=[rb.click])
        def render_boxes(count):
            for i in range(int(count or 0)):
                gr.Textbox(value=f"box {i + 1}", label=f"box {i + 1}")
            gr.Button("done")

        with gr.Tab("chat"):
            gr.ChatInterface(chat, multimodal=True)
        with gr.Tab("describe"):
            iface.render()
    return demo


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("app", choices=["engine", "server"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--logdir", help="accepted like rivulet_apps.py's; nothing is logged")
    args = parser.parse_args()
    print(f"gradio {gr.__version__}: {args.app} apps on 127.0.0.1:{args.port} "
          f"(profiling {os.environ.get('GRADIO_PROFILING', 'off')})", file=sys.stderr, flush=True)
    if args.app == "server":
        build_server().launch(server_name="127.0.0.1", server_port=args.port, _frontend=False,
                              quiet=True, show_error=True)
        return
    demo = build()
    demo.queue(default_concurrency_limit=8)
    demo.launch(server_name="127.0.0.1", server_port=args.port, _frontend=False, quiet=True,
                show_error=True)


if __name__ == "__main__":
    main()
