// lib.mjs
// Copyright 2026 The Rivulet authors
// SPDX-License-Identifier: GPL-3.0-or-later
//
// Helpers shared by the @gradio/client conformance tests: start and stop
// `rivulet-cli serve`, collect the events of a submission, bound waits.

import { spawn } from "node:child_process";
import { after } from "node:test";

// `serve` prints the first, `serve --replay FILE` the second.
const BANNER = /^Rivulet (?:demo server|replay of .*) on (http:\/\/\S+)$/;

// Starts `rivulet-cli serve --port 0 EXTRA…` and resolves with
// { url, proc, stderr(), stop() } once the first stdout line names the URL.
export function startServer(extra = []) {
  const cli = process.env.RIVULET_CLI;
  if (!cli) throw new Error("RIVULET_CLI is not set (run through tests/compat/run.sh)");

  const args = ["serve", "--host", "127.0.0.1", "--port", "0", ...extra];
  const proc = spawn(cli, args, { stdio: ["ignore", "pipe", "pipe"] });
  let errText = "";
  proc.stderr.setEncoding("utf8");
  proc.stderr.on("data", (chunk) => {
    // Bounded: keep only the tail for diagnostics.
    errText = (errText + chunk).slice(-16384);
  });

  const server = {
    proc,
    url: null,
    stderr: () => errText,
    stop: () => stopProcess(proc),
  };

  return new Promise((resolve, reject) => {
    let out = "";
    let settled = false;
    const fail = (why) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      proc.kill("SIGKILL");
      reject(new Error(`${why}\nargs: ${args.join(" ")}\nstdout: ${out}\nstderr: ${errText}`));
    };
    const guard = setTimeout(() => fail("rivulet-cli serve printed no URL within 20 s"), 20000);
    proc.on("error", (e) => fail(`cannot start ${cli}: ${e.message}`));
    proc.on("exit", (code, signal) => fail(`rivulet-cli serve exited early (code ${code}, signal ${signal})`));
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk) => {
      if (settled) return;
      out += chunk;
      const nl = out.indexOf("\n");
      if (nl < 0) {
        if (out.length > 4096) fail("first stdout line is too long");
        return;
      }
      const first = out.slice(0, nl).replace(/\r$/, "");
      const m = BANNER.exec(first);
      if (!m) return fail(`unexpected first stdout line: ${JSON.stringify(first)}`);
      settled = true;
      clearTimeout(guard);
      proc.removeAllListeners("exit");
      server.url = m[1];
      // Keep draining stdout so the server never blocks on a full pipe.
      proc.stdout.on("data", () => {});
      resolve(server);
    });
  });
}

// SIGTERM, then SIGKILL after 5 s; resolves with { code, signal }.
export function stopProcess(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null)
    return Promise.resolve({ code: proc.exitCode, signal: proc.signalCode });
  return new Promise((resolve) => {
    const hard = setTimeout(() => proc.kill("SIGKILL"), 5000);
    proc.once("exit", (code, signal) => {
      clearTimeout(hard);
      resolve({ code, signal });
    });
    proc.kill("SIGTERM");
  });
}

// Registers the file-level teardown: stop the servers, then end the process
// (@gradio/client 2.7.0 keeps sockets open, which would keep the test file
// alive forever). Exit code stays whatever node:test decided.
export function teardown(getServers) {
  after(async () => {
    const servers = getServers().filter(Boolean);
    const results = await Promise.all(servers.map((s) => s.stop()));
    results.forEach((r, i) => {
      if (r.code !== 0) {
        // One diagnostic line per line, so the TAP stream stays parseable.
        const tail = servers[i].stderr().split("\n").filter((l) => l.length > 0).slice(-40);
        for (const line of [`server ${i} ended with code ${r.code} signal ${r.signal}`, ...tail])
          process.stderr.write(`# ${line}\n`);
      }
    });
    setTimeout(() => process.exit(), 200).unref();
  });
}

// Rejects after ms with a message (a hang guard, not a timing claim).
export function withTimeout(promise, ms, what) {
  let timer;
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result after ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

// Iterates one submission to its end and returns every event it yielded,
// plus the data payloads and the last status. onEvent(ev, job) sees each event
// as it arrives (e.g. to cancel at the right moment).
export async function collect(job, onEvent = () => {}) {
  const events = [];
  for await (const ev of job) {
    events.push(ev);
    await onEvent(ev, job);
  }
  const data = events.filter((e) => e.type === "data").map((e) => e.data);
  const statuses = events.filter((e) => e.type === "status");
  return { events, data, statuses, last: statuses[statuses.length - 1] };
}

// A promise plus its resolve function.
export function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}
