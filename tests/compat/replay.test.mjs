// replay.test.mjs
// Copyright 2026 The Rivulet authors
// SPDX-License-Identifier: GPL-3.0-or-later
//
// `rivulet-cli serve --replay FILE` serves a recorded session's server side;
// the official client must run against it as against a live server and get
// the recorded outputs (streamed diffs applied, completions delivered).

import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@gradio/client";

import { collect, deferred, startServer, teardown, withTimeout } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const recording = (...parts) => path.join(here, "..", "data", ...parts);

const servers = [];
teardown(() => servers);

test("replay: a recorded generator session, diffs applied", { timeout: 60000 }, async () => {
  const server = await startServer(["--replay", recording("lint", "clean.jsonl"), "--speed", "0"]);
  servers.push(server);
  const client = await withTimeout(Client.connect(server.url, { events: ["data", "status"] }),
                                   20000, "Client.connect");
  const run = await withTimeout(collect(client.submit("/generate", ["anything"])), 20000, "submit");
  assert.equal(run.last?.stage, "complete");
  // The first yield "He", the append of "llo", then the completion.
  assert.deepEqual(run.data.map((d) => d[0]), ["He", "Hello", "Hello"]);
});

test("replay: two recorded sessions, each to its own client, with the recorded timing",
     { timeout: 60000 }, async () => {
  const server = await startServer(["--replay", recording("seeds", "blocking-generator.jsonl"),
                                    "--speed", "4"]);
  servers.push(server);
  const a = await withTimeout(Client.connect(server.url, { events: ["data", "status"] }), 20000, "connect a");
  const b = await withTimeout(Client.connect(server.url, { events: ["data", "status"] }), 20000, "connect b");
  // The replay maps sessions by the order of their first join: b joins once a's job started.
  const started = deferred();
  const runA = collect(a.submit("/generate", ["a"]), (ev) => {
    if (ev.type === "status" && ev.original_msg === "process_starts") started.resolve();
  });
  await withTimeout(started.promise, 20000, "a's process_starts");
  const runB = collect(b.submit("/generate", ["b"]));
  const [ra, rb] = await withTimeout(Promise.all([runA, runB]), 30000, "both sessions");
  assert.equal(ra.last?.stage, "complete");
  assert.equal(rb.last?.stage, "complete");
  assert.equal(ra.data[ra.data.length - 1][0], "a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11");
  assert.equal(rb.data[rb.data.length - 1][0], "b0");
});
