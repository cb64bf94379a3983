// cancel.test.mjs
// Copyright 2026 The Rivulet authors
// SPDX-License-Identifier: GPL-3.0-or-later
//
// job.cancel() from the official client against a server with one worker per
// endpoint: a queued job and a running job end as cancelled (protocol.md §6.1,
// §8e: data of nulls + complete), other jobs are untouched, and the shared
// stream keeps working for later jobs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@gradio/client";

import { collect, deferred, startServer, teardown, withTimeout } from "./lib.mjs";

let server = null;
let client = null;
teardown(() => [server]);

const SLOW_STEPS = 50;

// A submission observed live: promises for "running", "queued", each data event.
function watch(job) {
  const running = deferred();
  const queued = deferred();
  let onData = null;
  const done = collect(job, (ev) => {
    if (ev.type === "status" && ev.stage === "generating") running.resolve();
    if (ev.type === "status" && ev.stage === "pending" && typeof ev.position === "number")
      queued.resolve();
    if (ev.type === "data" && onData) onData(ev);
  });
  return {
    job, done,
    running: running.promise,
    queued: queued.promise,
    nextData: () => new Promise((resolve) => (onData = (ev) => { onData = null; resolve(ev); })),
  };
}

let slow = null;   // the running job, shared with the second test

test("cancel a queued job: it ends with null outputs, the running job is untouched",
     { timeout: 60000 }, async () => {
  server = await startServer(["--concurrency", "1"]);
  client = await withTimeout(Client.connect(server.url, { events: ["data", "status", "log"] }),
                             20000, "Client.connect");

  slow = watch(client.submit("/fake_diffusion", [SLOW_STEPS, 0.3]));
  await withTimeout(slow.running, 20000, "the slow job starting");

  const queued = watch(client.submit("/fake_diffusion", [2, 0.01]));
  await withTimeout(queued.queued, 20000, "the second job reporting a queue position");
  await queued.job.cancel();
  const run = await withTimeout(queued.done, 20000, "the cancelled queued job ending");

  assert.equal(run.last?.stage, "complete", `cancel ends the job cleanly: ${JSON.stringify(run.last)}`);
  assert.ok(!run.statuses.some((s) => s.stage === "generating"), "the queued job never ran");
  for (const d of run.data)
    assert.ok(d.every((v) => v === null), `cancelled job carries no output: ${JSON.stringify(d)}`);

  // The running job still makes progress after its neighbour's cancel.
  const ev = await withTimeout(slow.nextData(), 20000, "the running job's next update");
  assert.match(ev.data[1], /^step \d+\/50$/);
});

test("cancel a running job: it stops before its last step", { timeout: 60000 }, async () => {
  assert.ok(slow, "the previous test started the slow job");
  await slow.job.cancel();
  const run = await withTimeout(slow.done, 20000, "the cancelled running job ending");
  assert.equal(run.last?.stage, "complete", JSON.stringify(run.last));
  const texts = run.data.map((d) => d[1]).filter((t) => typeof t === "string");
  assert.ok(texts.length > 0, "it had produced some steps before the cancel");
  assert.ok(!texts.includes(`step ${SLOW_STEPS}/${SLOW_STEPS}`), `it never finished: ${texts.at(-1)}`);
  const last = run.data[run.data.length - 1];
  assert.ok(last.every((v) => v === null), `the cancel completion has null outputs: ${JSON.stringify(last)}`);
});

test("the shared stream stays usable after cancels", { timeout: 60000 }, async () => {
  assert.ok(client, "the first test connected");
  const text = await withTimeout(client.predict("/stream_text", ["after cancel", 5, 0.01]),
                                 30000, "predict after cancel");
  assert.equal(typeof text.data[0], "string");
  assert.ok(text.data[0].length > 0);
  const echo = await withTimeout(client.predict("/batch_echo", ["still here", 0.01]), 30000,
                                 "second predict after cancel");
  assert.deepEqual(echo.data, ["still here"]);
});
