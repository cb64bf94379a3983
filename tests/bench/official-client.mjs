// official-client.mjs
// Copyright 2026 The Rivulet authors
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The official @gradio/client (the version pinned in tests/compat) driven the
// same way tests/bench/run drives Rivulet, so the two can be compared side by
// side against the same server. Prints one JSON object.
//
//   node official-client.mjs burst  URL ENDPOINT N DATA_JSON
//     N concurrent submits; wall (first submit → last completion), latency
//     percentiles (submit → "complete" status), completed count.
//   node official-client.mjs users  URL ENDPOINT N ITERATIONS DATA_JSON
//     N users, one Client each, each submitting ITERATIONS jobs in turn; wall
//     time and this process's peak RSS.
//   node official-client.mjs stream URL COUNT JOBS
//     JOBS concurrent rapid_generation(COUNT) jobs; data events delivered per
//     second (first submit → last completion); each final text must be
//     "1\n2\n…\nCOUNT".
//
// GRADIO_CLIENT may point at the package's ESM entry; by default it is taken
// from tests/compat/node_modules (installed by `npm ci` there).

import { performance } from "node:perf_hooks";

const entry = process.env.GRADIO_CLIENT ??
  new URL("../compat/node_modules/@gradio/client/dist/index.js", import.meta.url).href;
const { Client } = await import(entry);

// Error texts seen, with counts (bounded), for the report.
const errors = new Map();
function noteError(text) {
  const key = String(text ?? "(no message)").slice(0, 160);
  if (errors.has(key) || errors.size < 20) errors.set(key, (errors.get(key) ?? 0) + 1);
}

// The client swallows why a request failed ("Connection errored out."): note
// the underlying reason, then let the failure go on unchanged.
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  try {
    return await realFetch(input, init);
  } catch (e) {
    const path = String(input?.url ?? input).replace(/^https?:\/\/[^/]+/, "").split("?")[0];
    noteError(`fetch ${path}: ${e?.cause?.code ?? e?.cause?.message ?? e?.message}`);
    throw e;
  }
};

const HANG_GUARD_MS = Number(process.env.BENCH_TIMEOUT_S ?? 600) * 1000;

// What a run has done so far, for the hang guard's report.
const progress = { completed: 0, failed: 0 };

function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

// Iterates one submission; resolves with its final stage ("complete", "error" or null).
async function follow(job, onData) {
  let last = null;
  for await (const ev of job) {
    if (ev.type === "data") onData(ev.data);
    else if (ev.type === "status") {
      if (ev.stage === "complete") last = ev.stage;
      else if (ev.stage === "error") {
        last = ev.stage;
        noteError(ev.message);
      }
    }
  }
  if (last === null) noteError("iterator ended without complete or error");
  return last;
}

function expectedText(count) {
  const lines = [];
  for (let i = 1; i <= count; i++) lines.push(String(i));
  return lines.join("\n");
}

async function burst(url, endpoint, n, data) {
  const client = await Client.connect(url, { events: ["data", "status"] });
  const latencies = [];
  let completed = 0;
  let failed = 0;
  let lastEnd = 0;
  const start = performance.now();

  const runs = [];
  for (let i = 0; i < n; i++) {
    const input = data.map((v) => (typeof v === "string" ? v.replaceAll("{i}", String(i)) : v));
    const submitted = performance.now();
    runs.push(follow(client.submit(endpoint, input), () => {}).then((stage) => {
      const now = performance.now();
      if (stage === "complete") {
        completed++;
        latencies.push((now - submitted) / 1000);
      } else failed++;
      lastEnd = Math.max(lastEnd, now);
    }, (e) => {
      failed++;
      noteError(e?.message ?? e);
    }));
  }
  await Promise.all(runs);
  return {
    bench: "official-burst", endpoint, submitted: n, completed, failed,
    wall_s: (lastEnd - start) / 1000,
    latency_s: { p50: percentile(latencies, 50), p99: percentile(latencies, 99),
                 max: percentile(latencies, 100) },
  };
}

async function stream(url, count, jobs) {
  const client = await Client.connect(url, { events: ["data", "status"] });
  const expected = expectedText(count);
  let events = 0;
  let verified = 0;
  let completed = 0;
  let lastEnd = 0;
  const start = performance.now();

  const runs = [];
  for (let j = 0; j < jobs; j++) {
    let text = null;
    runs.push(follow(client.submit("/rapid_generation", [count]), (d) => {
      events++;
      text = d[0];
    }).then((stage) => {
      lastEnd = Math.max(lastEnd, performance.now());
      if (stage === "complete") completed++;
      if (text === expected) verified++;
    }));
  }
  await Promise.all(runs);
  const wall = (lastEnd - start) / 1000;
  // The completion repeats the last yield as one more data event.
  return {
    bench: "official-stream", count, jobs, completed, verified, data_events: events,
    updates: count * jobs, wall_s: wall, updates_per_s: (count * jobs) / wall,
  };
}

// N users, one Client each (as a person would script users with it), each
// submitting ITER jobs one after another. Peak RSS of this process sampled.
async function users(url, endpoint, n, iterations, data) {
  let completed = 0;
  let failed = 0;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 100);
  const start = performance.now();
  let job = 0;

  async function user(u) {
    const client = await Client.connect(url, { events: ["data", "status"] });
    for (let k = 0; k < iterations; k++) {
      const i = ++job;
      const input = data.map((v) => (typeof v === "string"
        ? v.replaceAll("{i}", String(i)).replaceAll("{u}", String(u)) : v));
      const stage = await follow(client.submit(endpoint, input), () => {});
      if (stage === "complete") progress.completed = ++completed;
      else progress.failed = ++failed;
    }
  }
  const runs = [];
  for (let u = 1; u <= n; u++)
    runs.push(user(u).catch((e) => { progress.failed = ++failed; noteError(e?.message ?? e); }));
  await Promise.all(runs);
  const wall = (performance.now() - start) / 1000;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  return {
    bench: "official-users", users: n, iterations, submitted: n * iterations, completed, failed,
    wall_s: wall, peak_rss_kb: Math.round(peakRss / 1024),
  };
}

const [mode, url, ...rest] = process.argv.slice(2);
const guard = setTimeout(() => {
  console.log(JSON.stringify({ bench: `official-${mode}`, error: "hang guard expired", ...progress }));
  process.exit(3);
}, HANG_GUARD_MS);

let result;
if (mode === "burst") {
  const [endpoint, n, data] = rest;
  result = await burst(url, endpoint.startsWith("/") ? endpoint : `/${endpoint}`, Number(n),
                       JSON.parse(data));
} else if (mode === "stream") {
  const [count, jobs] = rest;
  result = await stream(url, Number(count), Number(jobs));
} else if (mode === "users") {
  const [endpoint, n, iterations, data] = rest;
  result = await users(url, endpoint.startsWith("/") ? endpoint : `/${endpoint}`, Number(n),
                       Number(iterations), JSON.parse(data));
} else {
  console.error("usage: official-client.mjs burst URL ENDPOINT N DATA_JSON | stream URL COUNT JOBS"
                + " | users URL ENDPOINT N ITERATIONS DATA_JSON");
  process.exit(2);
}
clearTimeout(guard);
result.errors = Object.fromEntries(errors);
console.log(JSON.stringify(result));
// @gradio/client 2.7.0 keeps sockets open after the last job: end here.
process.exit(0);
