#!/usr/bin/env python3
"""The official Python client (gradio_client) on the same burst as Rivulet's.

    python3 client_burst.py URL COUNT LIMIT_S

Submits COUNT jobs "job {i}" to /batch_echo at once, waits at most LIMIT_S seconds,
checks every finished job's output ("echo: job {i}") and prints one JSON object:
completed (right output), wrong, failed (an exception, by kind), unfinished, wall_s.
"""
import json
import os
import sys
import time

import starlette.status

if not hasattr(starlette.status, "HTTP_422_UNPROCESSABLE_CONTENT"):
    starlette.status.HTTP_422_UNPROCESSABLE_CONTENT = 422

import gradio_client  # noqa: E402


def main():
    url, count, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    client = gradio_client.Client(url, verbose=False)
    start = time.monotonic()
    jobs = [client.submit(f"job {i}", api_name="/batch_echo") for i in range(1, count + 1)]
    deadline = start + limit
    while time.monotonic() < deadline and not all(j.done() for j in jobs):
        time.sleep(0.05)
    wall = time.monotonic() - start

    completed = wrong = unfinished = 0
    failed = {}
    for i, job in enumerate(jobs, start=1):
        if not job.done():
            unfinished += 1
            continue
        try:
            result = job.result(timeout=0)
        except BaseException as e:  # CancelledError is a BaseException subclass in 3.8+
            kind = type(e).__name__
            failed[kind] = failed.get(kind, 0) + 1
            continue
        if result == f"echo: job {i}":
            completed += 1
        else:
            wrong += 1
    print(json.dumps({"client": gradio_client.__version__, "submitted": count,
                      "completed": completed, "wrong": wrong, "failed": failed,
                      "unfinished": unfinished, "wall_s": round(wall, 2),
                      "timed_out": unfinished > 0}), flush=True)
    # Stalled jobs keep the client's threads alive: leave without waiting for them.
    os._exit(0)


if __name__ == "__main__":
    main()
