// errors.test.mjs
// Copyright 2026 The Rivulet authors
// SPDX-License-Identifier: GPL-3.0-or-later
//
// How the server's refusals reach the official client (protocol.md §2.2):
// 503 (queue full) becomes the client's "busy" error status, 422 (bad inputs)
// a validation error carrying the server's detail text.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@gradio/client";

import { collect, deferred, startServer, teardown, withTimeout } from "./lib.mjs";

let small = null;     // --max-queue 2 --concurrency 1
let plain = null;     // defaults
teardown(() => [small, plain]);

const BUSY = /currently busy/i;

function watch(job) {
  const running = deferred();
  const queued = deferred();
  const done = collect(job, (ev) => {
    if (ev.type === "status" && ev.stage === "generating") running.resolve();
    if (ev.type === "status" && ev.stage === "pending" && typeof ev.position === "number")
      queued.resolve();
  });
  return { job, done, running: running.promise, queued: queued.promise };
}

test("queue full: the third waiting job gets the client's busy error", { timeout: 90000 }, async () => {
  small = await startServer(["--max-queue", "2", "--concurrency", "1"]);
  const client = await withTimeout(Client.connect(small.url, { events: ["data", "status"] }),
                                   20000, "Client.connect");

  // One running, two waiting: the queue is full.
  const running = watch(client.submit("/fake_diffusion", [50, 0.3]));
  await withTimeout(running.running, 20000, "the first job starting");
  const waiting = [];
  for (let i = 0; i < 2; i++) {
    const w = watch(client.submit("/fake_diffusion", [50, 0.3]));
    await withTimeout(w.queued, 20000, `waiting job ${i} reporting its position`);
    waiting.push(w);
  }

  const refused = await withTimeout(collect(client.submit("/fake_diffusion", [2, 0.01])), 20000,
                                    "the refused job ending");
  assert.equal(refused.last?.stage, "error", JSON.stringify(refused.last));
  assert.match(refused.last.message, BUSY);
  assert.equal(refused.data.length, 0, "no data for a refused job");

  await assert.rejects(withTimeout(client.predict("/batch_echo", ["refused too", 0.01]), 20000,
                                   "predict on a full queue"),
                       (e) => BUSY.test(e.message));

  // Freeing the queue makes room again.
  for (const job of [running, ...waiting]) await job.job.cancel();
  await withTimeout(Promise.all([running, ...waiting].map((j) => j.done)), 30000,
                    "cancelled jobs ending");
  const ok = await withTimeout(client.predict("/batch_echo", ["room again", 0.01]), 20000,
                               "predict after the queue drained");
  assert.deepEqual(ok.data, ["room again"]);
});

async function plainClient() {
  plain ??= await startServer();
  return withTimeout(Client.connect(plain.url, { events: ["data", "status"] }), 20000,
                     "Client.connect");
}

function assertValidationError(run) {
  assert.equal(run.last?.stage, "error", JSON.stringify(run.last));
  assert.equal(run.last.code, "validation_error", `HTTP 422 expected: ${JSON.stringify(run.last)}`);
  const message = typeof run.last.message === "string" ? run.last.message
                                                       : JSON.stringify(run.last.message);
  assert.ok(message && message.length > 0, "the server's detail text reaches the client");
  assert.equal(run.data.length, 0, "no data for a rejected job");
  return message;
}

test("422: a string where a number is expected is a validation error", { timeout: 30000 }, async () => {
  const client = await plainClient();
  const run = await withTimeout(collect(client.submit("/fake_diffusion", ["many", 0.01])), 20000,
                                "the rejected job ending");
  assertValidationError(run);
});

test("422: steps outside 1..50 is a validation error naming the problem", { timeout: 30000 },
     async () => {
  const client = await plainClient();
  for (const steps of [0, 51]) {
    const run = await withTimeout(collect(client.submit("/fake_diffusion", [steps, 0.01])), 20000,
                                  "the rejected job ending");
    const message = assertValidationError(run);
    assert.match(message, /steps|50|range|between|maximum|minimum/i, message);
  }
  await assert.rejects(client.predict("/fake_diffusion", [500, 0.01]),
                       (e) => e.code === "validation_error");
  // A valid call on the same client still works.
  const ok = await withTimeout(client.predict("/fake_diffusion", [1, 0.01]), 20000, "valid predict");
  assert.equal(ok.data[1], "step 1/1");
});
