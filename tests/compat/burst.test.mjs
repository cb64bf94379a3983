// burst.test.mjs
// Copyright 2026 The Rivulet authors
// SPDX-License-Identifier: GPL-3.0-or-later
//
// A burst of several hundred submissions to the batched endpoint through one
// @gradio/client: every job must complete with its own input echoed back
// (protocol.md §5, §8c–8e: completions arrive in bursts, often before the
// client has processed the join replies, and close_stream races new joins).

import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@gradio/client";

import { collect, startServer, teardown, withTimeout } from "./lib.mjs";

let server = null;
teardown(() => [server]);

const N = 400;

test(`burst: ${N} batch_echo submits each get back their own output`, { timeout: 150000 }, async () => {
  server = await startServer();
  const client = await withTimeout(Client.connect(server.url, { events: ["data", "status"] }),
                                   20000, "Client.connect");

  const inputs = Array.from({ length: N }, (_, i) => `burst-${i}-${(i * 7919) % 1000}`);
  const runs = inputs.map((text) => collect(client.submit("/batch_echo", [text, 0.02])));
  const results = await withTimeout(Promise.all(runs), 120000, `${N} batch_echo jobs`);

  const problems = [];
  results.forEach((run, i) => {
    const outputs = run.data.map((d) => d[0]);
    if (run.last?.stage !== "complete")
      problems.push(`job ${i}: ended with ${JSON.stringify(run.last)}`);
    else if (outputs.length === 0 || outputs[outputs.length - 1] !== inputs[i])
      problems.push(`job ${i}: expected ${inputs[i]}, got ${JSON.stringify(outputs)}`);
  });
  assert.deepEqual(problems.slice(0, 10), [], `${problems.length} of ${N} jobs went wrong`);

  // The queue reported positions to the client (estimation messages).
  const queued = results.filter((run) => run.statuses.some((s) => s.stage === "pending" &&
                                                         typeof s.position === "number"));
  assert.ok(queued.length > 0, "some jobs reported a queue position");

  // The same client keeps working after the burst.
  const again = await withTimeout(client.predict("/batch_echo", ["after the burst", 0.01]),
                                  20000, "predict after the burst");
  assert.deepEqual(again.data, ["after the burst"]);
});
