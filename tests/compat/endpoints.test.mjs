// endpoints.test.mjs
// Copyright 2026 The Rivulet authors
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The official @gradio/client 2.7.0 against `rivulet-cli serve`: discovery,
// view_api and every demo endpoint, including generator diffs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@gradio/client";

import { collect, startServer, teardown, withTimeout } from "./lib.mjs";

const EVENTS = ["data", "status", "log"];
let server = null;
let client = null;

teardown(() => [server]);

async function getClient() {
  if (!client) {
    server ??= await startServer();
    client = await withTimeout(Client.connect(server.url, { events: EVENTS }), 20000, "Client.connect");
  }
  return client;
}

function namesOf(params) {
  return params.filter((p) => !p.hidden).map((p) => p.parameter_name ?? p.label);
}

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

test("connect: config speaks sse_v3 and view_api lists the four demos with their parameters",
     { timeout: 30000 }, async () => {
  const c = await getClient();
  assert.equal(c.config.protocol, "sse_v3");
  assert.ok(c.config.api_prefix === "" || c.config.api_prefix === "/gradio_api",
            `api_prefix ${JSON.stringify(c.config.api_prefix)}`);

  const api = await c.view_api();
  const named = api.named_endpoints;
  for (const name of ["/fake_diffusion", "/stream_text", "/batch_echo", "/rapid_generation"])
    assert.ok(named[name], `view_api has ${name}; got ${Object.keys(named).join(", ")}`);

  assert.deepEqual(namesOf(named["/fake_diffusion"].parameters), ["steps", "step_delay"]);
  assert.deepEqual(namesOf(named["/stream_text"].parameters), ["prompt", "tokens", "token_delay"]);
  assert.deepEqual(namesOf(named["/batch_echo"].parameters), ["text", "delay"]);
  assert.deepEqual(namesOf(named["/rapid_generation"].parameters), ["count"]);
  assert.equal(named["/fake_diffusion"].returns.length, 2);
  for (const name of ["/stream_text", "/batch_echo", "/rapid_generation"])
    assert.equal(named[name].returns.length, 1, `${name} returns one value`);

  const steps = named["/fake_diffusion"].parameters.find((p) => p.parameter_name === "steps");
  assert.equal(steps.parameter_has_default, true);
  assert.equal(steps.parameter_default, 10);

  const deps = Object.fromEntries(c.config.dependencies.map((d) => [d.api_name, d]));
  assert.equal(deps.batch_echo.batch, true);
  assert.equal(deps.batch_echo.max_batch_size, 16);
  for (const name of ["fake_diffusion", "stream_text", "rapid_generation"])
    assert.equal(deps[name].types?.generator, true, `${name} is a generator`);
});

test("predict fake_diffusion: final text is step n/n and the image URL serves a PNG",
     { timeout: 60000 }, async () => {
  const c = await getClient();
  const result = await withTimeout(c.predict("/fake_diffusion", [3, 0.01]), 45000, "predict");
  const [image, text] = result.data;
  assert.equal(text, "step 3/3");
  assert.equal(typeof image, "object");
  assert.ok(image && typeof image.url === "string", `FileData with url: ${JSON.stringify(image)}`);
  assert.equal(image.meta?._type, "gradio.FileData");

  const response = await withTimeout(fetch(image.url), 20000, "image download");
  assert.equal(response.status, 200);
  const bytes = new Uint8Array(await response.arrayBuffer());
  assert.ok(bytes.length > PNG_MAGIC.length, `image has ${bytes.length} bytes`);
  assert.deepEqual([...bytes.subarray(0, 8)], PNG_MAGIC);
});

test("submit fake_diffusion: status and data events stream every step in order",
     { timeout: 60000 }, async () => {
  const c = await getClient();
  const steps = 4;
  const run = await withTimeout(collect(c.submit("/fake_diffusion", [steps, 0.01])), 45000,
                                "fake_diffusion submit");
  assert.equal(run.last?.stage, "complete", JSON.stringify(run.last));
  const texts = run.data.map((d) => d[1]);
  // Every step shows up once, in order; the completion repeats the last one.
  const distinct = texts.filter((t, i) => i === 0 || t !== texts[i - 1]);
  assert.deepEqual(distinct, Array.from({ length: steps }, (_, i) => `step ${i + 1}/${steps}`));
  for (const d of run.data) {
    assert.equal(d.length, 2);
    assert.ok(d[0] && typeof d[0].url === "string", "each update carries an image FileData");
  }
  assert.ok(run.statuses.some((s) => s.stage === "generating"), "a generating status was seen");
});

test("stream_text: append diffs reassemble into exactly the server's completion",
     { timeout: 60000 }, async () => {
  const c = await getClient();
  const tokens = 30;
  const run = await withTimeout(collect(c.submit("/stream_text", ["compat prompt", tokens, 0.01])),
                                45000, "stream_text submit");
  assert.equal(run.last?.stage, "complete", JSON.stringify(run.last));
  const texts = run.data.map((d) => d[0]);
  assert.ok(texts.length >= 3, `several updates streamed, got ${texts.length}`);
  const final = texts[texts.length - 1];          // process_completed: full value
  const reassembled = texts[texts.length - 2];    // last process_generating after diffs
  assert.equal(typeof final, "string");
  assert.ok(final.length > 0);
  assert.equal(reassembled, final);
  // Each update only grows the text (append diffs applied in order).
  for (let i = 1; i < texts.length; i++)
    assert.ok(texts[i].startsWith(texts[i - 1]),
              `update ${i} extends update ${i - 1}: ${JSON.stringify(texts[i - 1])} -> ${JSON.stringify(texts[i])}`);
  // One update per token: `tokens` generating updates, then the completion,
  // whose text holds exactly `tokens` space-separated tokens.
  assert.equal(texts.length, tokens + 1, `generating updates + completion for ${tokens} tokens`);
  assert.equal(final.split(" ").length, tokens, JSON.stringify(final));
});

test("rapid_generation: hundreds of diffs give lines 1..N, each update adding one line",
     { timeout: 90000 }, async () => {
  const c = await getClient();
  const count = 300;
  const run = await withTimeout(collect(c.submit("/rapid_generation", [count])), 75000,
                                "rapid_generation submit");
  assert.equal(run.last?.stage, "complete", JSON.stringify(run.last));
  const texts = run.data.map((d) => d[0]);
  const final = texts[texts.length - 1];
  const lines = final.split("\n").filter((l) => l.length > 0);
  assert.equal(lines.length, count);
  lines.forEach((line, i) => {
    assert.match(line, new RegExp(`(^|\\D)${i + 1}(\\D|$)`), `line ${i + 1} is ${JSON.stringify(line)}`);
  });
  assert.equal(texts[texts.length - 2], final, "reassembled diffs equal the completion");
  for (let i = 1; i < texts.length; i++)
    assert.ok(texts[i].startsWith(texts[i - 1]), `update ${i} extends the previous one`);
});

test("batch_echo: predict returns its own input", { timeout: 30000 }, async () => {
  const c = await getClient();
  const result = await withTimeout(c.predict("/batch_echo", ["hello rivulet", 0.01]), 20000, "predict");
  assert.deepEqual(result.data, ["hello rivulet"]);
});

test("keyword arguments use the endpoint's parameter names and defaults", { timeout: 30000 },
     async () => {
  const c = await getClient();
  const result = await withTimeout(c.predict("/batch_echo", { text: "by keyword", delay: 0.01 }),
                                   20000, "predict");
  assert.deepEqual(result.data, ["by keyword"]);
  const gen = await withTimeout(c.predict("/rapid_generation", { count: 5 }), 20000, "predict");
  assert.equal(gen.data[0].split("\n").filter((l) => l.length > 0).length, 5);
});

test("the server exits cleanly on SIGTERM", { timeout: 30000 }, async () => {
  const c = await getClient();
  assert.ok(c.config, "a client was connected while the server ran");
  const { code, signal } = await server.stop();
  assert.equal(signal, null, `exited by signal ${signal}\n${server.stderr()}`);
  assert.equal(code, 0, `exit code ${code}\n${server.stderr()}`);
});
