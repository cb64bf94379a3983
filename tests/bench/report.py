#!/usr/bin/python3
# tests/bench/report.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Turns tests/bench/run's tagged results (TAG<TAB>JSON per line) into the one
# table of issue #7: metric, Rivulet, official client or baseline, ratio, goal,
# met?  Medians over the repetitions; the notes say how many there were.
#
#   report.py RESULTS.jsonl        print the table
#   report.py --summary JSON       one short line for the progress log

import json
import re
import statistics
import sys


def load(path):
    results = {}
    with open(path) as f:
        for line in f:
            tag, _, text = line.rstrip("\n").partition("\t")
            try:
                results[tag] = json.loads(text)
            except ValueError:
                results[tag] = {"error": "unparsable: " + text[:80]}
    return results


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def reps_of(results, prefix):
    """Results whose tag is PREFIX-<n>, in repetition order."""
    pattern = re.compile(re.escape(prefix) + r"-(\d+)$")
    found = sorted((int(m.group(1)), v) for k, v in results.items() if (m := pattern.match(k)))
    return [v for _, v in found]


def fmt(value, unit="", digits=None):
    if value is None:
        return "n/a"
    if isinstance(value, str):
        return value
    if digits is None:
        digits = 0 if abs(value) >= 100 else 2 if abs(value) < 10 else 1
    text = f"{value:,.{digits}f}"
    return text + unit


class Table:
    def __init__(self):
        self.rows = []
        self.notes = []

    def add(self, metric, rivulet, other, ratio, goal, met):
        self.rows.append([metric, rivulet, other, ratio, goal, met])

    def section(self, title):
        self.rows.append(title)

    def render(self):
        header = ["metric", "Rivulet", "official / baseline", "ratio", "goal", "met?"]
        cells = [r for r in self.rows if isinstance(r, list)]
        widths = [max(len(str(row[i])) for row in cells + [header]) for i in range(len(header))]
        widths[0] = max(widths[0], 20)
        total = sum(widths) + 3 * (len(widths) - 1)
        out = []
        line = " | ".join(h.ljust(w) for h, w in zip(header, widths))
        out.append(line)
        out.append("-+-".join("-" * w for w in widths))
        for row in self.rows:
            if isinstance(row, str):
                out.append(("-- " + row + " ").ljust(total, "-"))
                continue
            out.append(" | ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) if i in (1, 2, 3)
                                  else str(c).ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
        return "\n".join(out)


def met(ok):
    if ok is None:
        return "n/a"
    return "yes" if ok else "NO"


def ingest_rows(t, results):
    sets = [("mix", "mix (est+start+49 tok+done)"), ("estimation", "estimation"),
            ("append", "1-token append diff"), ("completed", "process_completed")]
    any_set = False
    for name, label in sets:
        r = results.get(f"ingest-{name}")
        if not r:
            continue
        if not any_set:
            t.section("1. client ingest, frames/s on one core (CPU time), vs json-glib parse alone")
            any_set = True
        if "error" in r:
            t.add(f"ingest {label}", "error", "", "", "<= 1.5x", "NO")
            continue
        parse, path = r.get("parse_fps"), r.get("path_fps")
        ratio = parse / path if parse and path else None
        ok = ratio is not None and ratio <= 1.5 and r.get("verified")
        t.add(f"ingest {label}: path", fmt(path), fmt(parse), fmt(ratio, "x", 2),
              "time <= 1.5x parse", met(ok))
        if r.get("real_fps"):
            real = r["real_fps"]
            ratio = parse / real
            t.add(f"ingest {label}: real RivClient", fmt(real), fmt(parse), fmt(ratio, "x", 2),
                  "time <= 1.5x parse", met(ratio <= 1.5 and r.get("verified")))
        if not r.get("verified"):
            t.notes.append(f"ingest {name}: outputs NOT verified (see logs/ingest.err)")
        if name == "mix":
            t.notes.append(
                f"1: {r['reps']} repetitions of {r['frames']:,} frames ({r['bytes'] / r['frames']:.0f} B "
                f"avg) for {r['jobs']:,} jobs; rates are frames per CPU-second of the working thread "
                f"(wall-clock medians: parse {fmt(r.get('parse_wall_fps'))}, path "
                f"{fmt(r.get('path_wall_fps'))}, real {fmt(r.get('real_wall_fps'))}). 'path' is "
                "the client's own stream code (SSE reader, message parser, event-id lookup, diff, "
                "RivJob updates) fed through _riv_client_feed_stream_for_testing; 'real' is RivClient itself "
                "reading the same bytes over loopback from a server thread (adds libsoup + socket). "
                f"json-glib with an immutable parser, for comparison: {fmt(r.get('parse_immutable_fps'))}/s.")
        if name in ("mix", "append") and r.get("stage_json_fps"):
            cost = lambda key: fmt(parse / r[key], "", 2) if r.get(key) else "n/a"
            t.notes.append(
                f"1: {name} cost breakdown in units of 'parse alone' (cumulative): SSE reader "
                f"{cost('stage_reader_fps')}; + JSON as RivClient parses it (plain reused parser + "
                f"riv_json_parse prescan) {cost('stage_json_fps')}; + RivMessage "
                f"{cost('stage_message_fps')}; + lookup, diff and RivJob update {cost('path_fps')}")


def burst_rows(t, results):
    sizes = sorted({int(m.group(1)) for k in results if (m := re.match(r"burst-(\d+)-rivulet-\d+$", k))})
    if not sizes:
        return
    t.section("2. burst to batch_echo (delay 0), loopback, server and client in separate processes")
    for size in sizes:
        riv = reps_of(results, f"burst-{size}-rivulet")
        off = reps_of(results, f"burst-{size}-official")
        rw = median([r.get("wall_s") for r in riv])
        ow = median([r.get("wall_s") for r in off])
        ratio = rw / ow if rw and ow else None
        riv_done = [f"{r.get('completed', 0)}" for r in riv]
        off_done = [f"{r.get('completed', 0)}" for r in off]
        all_riv = all(r.get("completed") == size for r in riv) and len(riv) > 0
        all_off = all(r.get("completed") == size for r in off) and len(off) > 0
        t.add(f"burst {size:,}: wall s", fmt(rw, " s", 2), fmt(ow, " s", 2), fmt(ratio, "x", 3),
              "<= 0.5x official", met(None if ow is None else ratio is not None and ratio <= 0.5))
        for p in ("p50", "p99"):
            rv = median([(r.get("latency_s") or {}).get(p) for r in riv])
            ov = median([(r.get("latency_s") or {}).get(p) for r in off])
            t.add(f"burst {size:,}: {p} submit->complete", fmt(rv, " s", 3), fmt(ov, " s", 3),
                  fmt(rv / ov if rv and ov else None, "x", 3), "(info)", "")
        t.add(f"burst {size:,}: completed per rep", "/".join(riv_done) or "n/a",
              "/".join(off_done) or "n/a", "", f"{size:,} in both",
              met(None if ow is None and all_riv else all_riv and all_off))
        errors = {}
        for r in off:
            for k, v in (r.get("errors") or {}).items():
                errors[k] = errors.get(k, 0) + v
        if errors:
            t.notes.append(f"2: official client errors at {size:,}: " +
                           "; ".join(f"{v}x {k!r}" for k, v in errors.items()))
        t.notes.append(f"2: burst {size:,}: {len(riv)} repetitions each, alternating Rivulet "
                       "(rivulet-cli load --json) and @gradio/client 2.7.0 (one Client, N concurrent "
                       "submit()) on the same server")


def stream_rows(t, results, cores):
    shapes = [("100000x1", 100000, 1), ("1000x100", 1000, 100)]
    shown = False
    for name, count, jobs in shapes:
        riv = reps_of(results, f"stream-{name}-rivulet")
        off = reps_of(results, f"stream-{name}-official")
        raw = [r for r in reps_of(results, f"stream-{name}-raw") if "error" not in r]
        if not riv:
            continue
        if not shown:
            t.section("3. streaming rapid_generation, updates/s end to end, final text verified")
            shown = True
        rr = median([r.get("updates_per_s") for r in riv])
        orr = median([o.get("updates_per_s") for o in off])
        ratio = rr / orr if rr and orr else None
        parse = median([r.get("parse_updates_per_s") for r in raw])
        parse_imm = median([r.get("parse_immutable_updates_per_s") for r in raw])
        emit = median([r.get("updates_per_s") for r in raw])
        ok = None if orr is None else rr is not None and rr >= 50000 and ratio is not None and ratio >= 3
        label = f"{count:,} updates x {jobs} job" + ("s" if jobs > 1 else "")
        t.add(f"stream {label}: updates/s", fmt(rr), fmt(orr), fmt(ratio, "x", 2),
              ">= 50,000/s and >= 3x official", met(ok))
        # The wire: what the server emits to a reader that parses nothing, in
        # the same repetitions (each Rivulet run against the raw run after it).
        wire = [r.get("updates_per_s") / w.get("updates_per_s")
                for r, w in zip(riv, raw) if r.get("updates_per_s") and w.get("updates_per_s")]
        if emit is not None:
            wire_ratio = median(wire)
            t.add("  server emission, raw reader (no parsing)", fmt(rr), fmt(emit),
                  fmt(wire_ratio, "x", 2), ">= 0.5x the wire (same run)",
                  met(wire_ratio is not None and wire_ratio >= 0.5))
        if parse is not None:
            t.add("  json-glib parse alone, same frames, 1 core", fmt(rr), fmt(parse),
                  fmt(rr / parse if rr and parse else None, "x", 2),
                  "(info: Rivulet reads frames without json-glib)", "")
        ccpu = median([r.get("client_cpu_s") for r in riv])
        scpu = median([r.get("server_cpu_s") for r in riv])
        ocpu = median([o.get("server_cpu_s") for o in off])
        if ccpu is not None:
            t.add(f"  client CPU s (Rivulet); server CPU s", fmt(ccpu, " s", 2),
                  fmt(scpu, " s", 2) + (f" ({fmt(ocpu, ' s', 2)} w/ official)" if ocpu else ""), "",
                  "(info)", "")
        rv = "/".join(f"{r.get('verified', 0)}" for r in riv)
        ov = "/".join(f"{o.get('verified', 0)}" for o in off)
        all_ok = all(r.get("verified") == jobs for r in riv) and all(o.get("verified") == jobs for o in off)
        t.add(f"stream {label}: texts verified", rv, ov or "n/a", "", f"{jobs} per rep", met(all_ok))
        free = reps_of(results, f"stream-unpinned-{name}-rivulet")
        free_off = reps_of(results, f"stream-unpinned-{name}-official")
        free_raw = [r for r in reps_of(results, f"stream-unpinned-{name}-raw") if "error" not in r]
        if free:
            fr = median([r.get("updates_per_s") for r in free])
            fo = median([o.get("updates_per_s") for o in free_off])
            fw = median([r.get("updates_per_s") / w.get("updates_per_s")
                         for r, w in zip(free, free_raw) if r.get("updates_per_s") and w.get("updates_per_s")])
            t.add("  same, CPUs left to the kernel: vs official", fmt(fr), fmt(fo),
                  fmt(fr / fo if fr and fo else None, "x", 2), "(info)", "")
            t.add("  same, CPUs left to the kernel: vs the wire", fmt(fr),
                  fmt(median([w.get("updates_per_s") for w in free_raw])), fmt(fw, "x", 2), "(info)", "")
        pins = results.get("stream-pinning")
        placed = (f"the server pinned to CPU {pins.get('server_cpus')} and every client to CPU "
                  f"{pins.get('client_cpus')}, as on two machines" if pins else "CPUs left to the kernel")
        t.notes.append(f"3: {name}: {len(riv)} repetitions, alternating Rivulet (bench-client stream, "
                       "RivClient), @gradio/client and the raw reader on one server (--concurrency 100), "
                       f"{placed}; wall = first submit to last completion; updates = count x jobs")
        if free:
            t.notes.append(f"3: {name}, CPUs left to the kernel: {len(free)} more repetitions on a server "
                           "of its own, nothing pinned: the server's 100 generator threads and the client "
                           "then share both CPUs thread by thread (info rows)")
        if raw:
            frames = median([r.get("frames") for r in raw])
            t.notes.append(
                f"3: {name} the wire: bench-client raw reads the same stream with plain libsoup, splits "
                f"frames at blank lines and parses nothing ({fmt(frames, '', 0)} frames, "
                f"{'complete' if all(r.get('complete') for r in raw) else 'INCOMPLETE'}): the server's "
                f"emission rate, which no client can beat. Then a reused JsonParser loads every recorded "
                f"frame, {raw[0].get('parse_reps')} passes, thread CPU time, median {fmt(parse)} updates/s "
                f"(json_parser_new_immutable: {fmt(parse_imm)}/s): what a client that builds every frame "
                f"with json-glib could deliver on one thread; Rivulet reads frames straight from the text "
                f"(riv_message_parse_lean)")


def scaling_rows(t, results, cores):
    params = results.get("scaling-params") or {"steps": 10, "delay": 0.1}
    steps, delay = params["steps"], params["delay"]
    walls = {}
    for n in (1, 8, 32, 64):
        reps = reps_of(results, f"scaling-{n}")
        if reps:
            walls[n] = (median([r.get("wall_s") for r in reps]), reps)
    if 1 not in walls:
        return
    t.section(f"4. server scaling, fake_diffusion steps {steps} x {delay} s, --concurrency 64, "
              f"{cores:g} usable cores")
    base = walls[1][0]
    rest_by_n = {}
    for n in (1, 8, 32, 64):
        if n not in walls:
            continue
        w, reps = walls[n]
        ratio = w / base if w and base else None
        done = all(r.get("completed") == n for r in reps)
        # The server's CPU seconds per step in this run, and the wall time
        # that much CPU work can not beat on these cores: no step is shorter
        # than its sleep, and all N jobs' renders need N * cpu / cores.
        cpu = median([r["server_cpu_s"] / (n * steps) for r in reps if r.get("server_cpu_s") is not None])
        floor = steps * max(delay, n * cpu / cores) if cpu is not None else None
        floor_ratio = floor / base if floor and base else None
        # What the cores allow: a step takes its delay (fake_diffusion renders
        # within it), or N renders' CPU spread over the cores if that is longer.
        allowed = max(base, floor) if base and floor else None
        # What else ran on the machine meanwhile (the load client and anything
        # else), in cores' worth over the run.
        rest = median([(r["machine_busy_s"] - r["server_cpu_s"]) / r["wall_s"] for r in reps
                       if r.get("machine_busy_s") is not None and r.get("server_cpu_s") is not None
                       and r.get("wall_s")])
        if rest is not None:
            rest_by_n[n] = rest
        if n > 1:
            ok = ratio is not None and ratio <= 1.2 and done
            verdict = met(ok)
            if not ok and floor_ratio is not None:
                verdict = (f"NO (unreachable: floor {floor_ratio:.2f}x)" if floor_ratio > 1.2
                           else f"NO (floor {floor_ratio:.2f}x)")
            if not ok and rest is not None:
                verdict += f" (rest of machine {rest:.2f} cores)"
            t.add(f"scaling N={n}: wall(N)/wall(1)", fmt(w, " s", 2), fmt(base, " s", 2),
                  fmt(ratio, "x", 2), "<= 1.2", verdict)
        if cpu is None:
            continue
        t.add(f"  N={n}: server CPU/step; CPU floor", fmt(cpu * 1000, " ms", 2), fmt(floor, " s", 2),
              fmt(floor_ratio, "x", 2), "(floor/wall(1); floor = steps*max(delay, N*cpu/cores))", "")
        if n > 1 and floor is not None and base and floor > base:
            ok2 = w is not None and allowed is not None and w <= 1.2 * allowed and done
            t.add(f"  N={n}: proposed goal, wall / max(wall(1), floor)", fmt(w, " s", 2),
                  fmt(allowed, " s", 2), fmt(w / allowed if w and allowed else None, "x", 2),
                  "<= 1.2 (the goal, where the CPU allows it)",
                  met(ok2) + (f" (rest of machine {rest:.2f} cores)"
                              if rest is not None and not ok2 else ""))
    text = {n: reps_of(results, f"scaling-text-{n}") for n in (1, 64)}
    if text[1] and text[64]:
        w1 = median([r.get("wall_s") for r in text[1]])
        w64 = median([r.get("wall_s") for r in text[64]])
        ratio = w64 / w1 if w1 and w64 else None
        t.add(f"control stream_text {steps} x {delay} s N=64", fmt(w64, " s", 2), fmt(w1, " s", 2),
              fmt(ratio, "x", 2), "<= 1.2", met(ratio is not None and ratio <= 1.2))
    t.notes.append(f"4: {len(walls[1][1])} repetitions per N (rivulet-cli load --json wall); "
                   "baseline column = wall(1); server CPU/step = the serve process's utime+stime during "
                   "the run / (N x steps), median (read in clock ticks of 10 ms: +-1 ms at N=1); cores = the affinity mask (and any cgroup quota) of the "
                   "bench, not counting other load on the machine. A fake_diffusion step takes its delay, "
                   "its picture rendered within it; the CPU floor no scheduler can beat is "
                   "steps x max(delay, N x cpu/cores), and the proposed goal, for N where that floor "
                   "exceeds wall(1), is wall(N) <= 1.2 x the floor (the issue's goal otherwise). "
                   "The control row runs stream_text (same step time, no image) "
                   "to separate scheduling from CPU. Rest of the machine (/proc/stat busy time minus the "
                   "server's, per second of the run: the load client and everything else on the "
                   "machine), in cores: " + (", ".join(f"N={n} {v:.2f}" for n, v in rest_by_n.items())
                                              or "n/a"))


def memory_rows(t, results):
    reps = reps_of(results, "memory")
    if not reps:
        return
    t.section("5. scale of state: 10,000-job burst (batch_echo, empty text), then idle")
    per_job = median([r.get("client_bytes_per_job") for r in reps])
    t.add("client RSS per finished job", fmt(per_job, " B"), "", "", "<= 4,096 B",
          met(per_job is not None and per_job <= 4096))
    cleared = median([(r["client_rss_cleared"] - r["client_rss_before"]) / r["count"] for r in reps
                      if "client_rss_cleared" in r])
    t.add("  ... after clear_finished()", fmt(cleared, " B"), "", "", "(info)", "")
    before = median([r.get("server_rss_before") for r in reps])
    after = median([r.get("server_rss_after") for r in reps])
    peak = median([r.get("server_rss_peak") for r in reps])
    ratio = after / before if after and before else None
    t.add("server VmRSS idle after / before", fmt(after / 2**20 if after else None, " MiB", 1),
          fmt(before / 2**20 if before else None, " MiB", 1), fmt(ratio, "x", 3), "<= 1.10",
          met(ratio is not None and ratio <= 1.10))
    gs = reps_of(results, "memory-gslice-malloc")
    if gs:
        gb = median([r.get("server_rss_before") for r in gs])
        ga = median([r.get("server_rss_after") for r in gs])
        gr = median([r["server_rss_after"] / r["server_rss_before"] for r in gs
                     if r.get("server_rss_before") and r.get("server_rss_after")])
        hb = median([r.get("server_heap_in_use_before") or None for r in gs])
        ha = median([r.get("server_heap_in_use_after") or None for r in gs])
        gp = median([r.get("server_rss_peak") for r in gs])
        heap = f", heap in use +{fmt((ha - hb) / 2**10, ' KiB', 0)}" if ha and hb else ""
        t.add("  same, server with G_SLICE=always-malloc", fmt(ga / 2**20 if ga else None, " MiB", 1),
              fmt(gb / 2**20 if gb else None, " MiB", 1), fmt(gr, "x", 3),
              f"(diagnostic: peak {fmt(gp / 2**20 if gp else None, ' MiB', 1)}{heap})", "")
        per_rep = "/".join(fmt(r["server_rss_after"] / r["server_rss_before"], "x", 3) for r in reps
                           if r.get("server_rss_before") and r.get("server_rss_after"))
        per_rep_gs = "/".join(fmt(r["server_rss_after"] / r["server_rss_before"], "x", 3) for r in gs
                              if r.get("server_rss_before") and r.get("server_rss_after"))
        t.notes.append(f"5: server VmRSS after / before per repetition: {per_rep} as shipped, {per_rep_gs} "
                       "with G_SLICE=always-malloc set by the bench (a fresh server each, alternating). GLib 2.74's "
                       "GSlice keeps freed json-glib nodes, GList links and GStrings in its own magazines "
                       "(heaptrack: the idle server's live blocks were g_slice_alloc slabs from parsing the "
                       "join bodies), where malloc_trim cannot reach them, so rivulet-cli re-executes "
                       "itself with G_SLICE=always-malloc on GLib < 2.76 (newer GLib does that always): "
                       "both rows now measure the same allocator")
    t.add("  server VmRSS peak (end of burst)", fmt(peak / 2**20 if peak else None, " MiB", 1), "", "",
          "(info)", "")
    samples = [r.get("server_after_samples_kib") or [] for r in reps]
    if all(samples):
        t.add("  server VmRSS idle samples, first / last", "/".join(fmt(s[0] / 1024, "", 1) for s in samples),
              "/".join(fmt(s[-1] / 1024, "", 1) for s in samples), "",
              f"(info: {len(samples[0])} samples, every 0.5 s)", "")
    # VmRSS = RssAnon (the process's own heap, stacks, anonymous maps) +
    # RssFile (pages of its executable and libraries it has touched, shared
    # and clean) + RssShmem.
    for key, label in (("anon", "RssAnon (own memory)"), ("file", "RssFile (library pages)")):
        b = median([r.get(f"server_rss_{key}_before") for r in reps])
        a = median([r.get(f"server_rss_{key}_after") for r in reps])
        if a and b:
            t.add(f"  server {label} after / before", fmt(a / 2**20, " MiB", 2), fmt(b / 2**20, " MiB", 2),
                  fmt(a / b, "x", 3), f"(diagnostic: {fmt((a - b) / 2**10, ' KiB', 0)})", "")
    diags = reps_of(results, "memory-diag")
    trimmed = median([d.get("server_rss_after_trim") or None for d in diags])
    if trimmed:
        t.add("  server VmRSS after malloc_trim (gdb)", fmt(trimmed / 2**20, " MiB", 1),
              fmt(before / 2**20 if before else None, " MiB", 1),
              fmt(trimmed / before if before else None, "x", 3), "(diagnostic)", "")
    heap_before = median([r.get("server_heap_in_use_before") or None for r in reps])
    heap_after = median([r.get("server_heap_in_use_after") or None for r in reps])
    if heap_before and heap_after:
        t.add("  server heap in use (glibc) after / before", fmt(heap_after / 2**20, " MiB", 2),
              fmt(heap_before / 2**20, " MiB", 2), fmt(heap_after / heap_before, "x", 2),
              f"(diagnostic: {fmt((heap_after - heap_before) / 2**10, ' KiB', 0)})", "")
    if diags:
        fb = median([d.get("server_fds_before") for d in diags])
        fa = median([d.get("server_fds_after") for d in diags])
        cw = median([d.get("server_close_wait") for d in diags])
        t.add("  server open fds after / before", fmt(fa, "", 0), fmt(fb, "", 0), "",
              f"(info: {cw:.0f} in CLOSE-WAIT)" if cw else "(info)", "")
    done = all(r.get("completed") == r.get("count") for r in reps)
    if not done:
        t.notes.append("5: NOT every job completed: " + ", ".join(str(r.get("completed")) for r in reps))
    t.notes.append(f"5: {len(reps)} repetitions, a fresh server each; client RSS from /proc/self/statm "
                   "after malloc_trim(0), jobs kept in the client's list; baseline after a 200-job "
                   "warm-up; server 'after' = last VmRSS sample after the client closed and the server "
                   "idled; heap in use = glibc malloc_stats() (all arenas) through gdb at the same two "
                   "moments")


def sessions_rows(t, results):
    small = [r for r in reps_of(results, "sessions-1000") if "error" not in r]
    large = [r for r in reps_of(results, "sessions-10000") if "error" not in r]
    if not small and not large:
        return
    t.section("7. one rivulet-cli serve holding N sessions, each with its own SSE stream and a job waiting")
    per_small = median([r.get("server_bytes_per_session") for r in small])
    per_large = median([r.get("server_bytes_per_session") for r in large])
    ratio = per_large / per_small if per_large and per_small else None
    t.add("server VmRSS per session, N = 10,000 vs 1,000", fmt(per_large, " B"), fmt(per_small, " B"),
          fmt(ratio, "x", 2), "flat: <= 1.25x", met(ratio is not None and ratio <= 1.25))
    held = median([r.get("streaming") for r in large])
    fds = median([r.get("server_fds_held") for r in large])
    t.add("streams held at once (N = 10,000)", fmt(held, "", 0), fmt(fds, " fds", 0), "",
          ">= 10,000", met(held is not None and held >= 10000))
    lost = sum(r.get("lost", 1) + r.get("join_errors", 0) + r.get("stream_errors", 0) for r in large + small)
    t.add("sessions without completion + close_stream", fmt(lost, "", 0), "", "", "0", met(lost == 0))
    for rows, n in ((large, "10,000"), (small, "1,000")):
        if rows:
            t.add(f"  N = {n}: open / drain after cancel", fmt(median([r.get("open_s") for r in rows]), " s", 2),
                  fmt(median([r.get("drain_s") for r in rows]), " s", 2), "", "(info)", "")
            t.add(f"  N = {n}: server CPU holding 6 s (heartbeat 5 s)",
                  fmt(median([r.get("server_hold_cpu_s") for r in rows]), " s", 2), "", "", "(info)", "")
    t.notes.append(f"7: {len(large)} + {len(small)} runs, a fresh server each (--concurrency 1 --max-queue 0 "
                   "--heartbeat 5; a gate job holds the slot so every session has a job waiting); per session = (VmRSS held - VmRSS before) / N, both in the same run; "
                   "the driver (tests/bench/bench-sessions.c) opens one plain socket per stream")


def ui_rows(t, results):
    idle = [r for r in reps_of(results, "ui-idle") if "error" not in r]
    idle_stall = median([r.get("stall_max_ms") for r in idle])
    idle_p99 = median([r.get("frame_p99_ms") for r in idle])
    idle_fps = median([r.get("frames", 0) / r["seconds"] for r in idle if r.get("seconds")])
    shown = False
    for name, label in (("burst", "burst 5,000 batch_echo"), ("rapid", "rapid_generation 100,000")):
        reps = reps_of(results, f"ui-{name}")
        if not reps:
            continue
        if not shown:
            t.section("6. UI under Xvfb (GSK_RENDERER=cairo), first job to window closed; baseline = idle window")
            shown = True
        stall = median([r.get("stall_max_ms") for r in reps])
        p99 = median([r.get("frame_p99_ms") for r in reps])
        worst = max((r.get("stall_max_ms") or 0) for r in reps)
        ok = all(r.get("status") == 0 and not r.get("timed_out") for r in reps)
        t.add(f"UI {label}: longest stall", fmt(stall, " ms", 1), fmt(idle_stall, " ms", 1), "",
              "<= 50 ms", met(stall is not None and stall <= 50 and ok))
        t.add(f"UI {label}: p99 frame interval", fmt(p99, " ms", 1), fmt(idle_p99, " ms", 1), "",
              "<= 33 ms", met(p99 is not None and p99 <= 33 and ok))
        each = [r.get("frame_p99_ms") for r in reps if r.get("frame_p99_ms") is not None]
        if len(each) > 1:
            t.add(f"  p99 frame interval, each run (spread)", " / ".join(fmt(v, "", 1) for v in each),
                  "", "", f"(info: {fmt(min(each), '', 1)}-{fmt(max(each), ' ms', 1)}, "
                  f"{sum(v <= 33 for v in each)} of {len(each)} runs <= 33 ms)", "")
        net = median([r.get("frame_net_p99_ms") for r in reps])
        if net is not None:
            wait = median([r.get("cpu_wait_ms") for r in reps])
            t.add(f"  p99 frame interval less the app's wait for a CPU", fmt(net, " ms", 1),
                  fmt(median([r.get("frame_net_p99_ms") for r in idle]), " ms", 1), "",
                  f"(info: waited {fmt(wait, ' ms', 0)} in all for a CPU)", "")
        paint = median([r.get("paint_p99_ms") for r in reps])
        if paint is not None:
            t.add(f"  p99 frame's own cost (update, layout, paint)", fmt(paint, " ms", 1),
                  fmt(median([r.get("paint_p99_ms") for r in idle]), " ms", 1), "", "(info)", "")
        fps = median([r.get("frames", 0) / r["seconds"] for r in reps if r.get("seconds")])
        t.add(f"UI {label}: frames drawn per second", fmt(fps, "/s", 1), fmt(idle_fps, "/s", 1), "",
              "(info)", "")
        apps = reps_of(results, f"ui-{name}") and [results.get(f"ui-{name}-{i}-app") for i in
                                                    range(1, len(reps) + 1)]
        apps = [a for a in apps or [] if a]
        app_text = ""
        if apps:
            app_text = (f"; the app's own stall monitor: longest stall "
                        f"{'/'.join(str(a.get('app_stall_ms')) for a in apps)} ms, longest frame gap "
                        f"{'/'.join(str(a.get('app_frame_gap_ms')) for a in apps)} ms")
        secs = "/".join(f"{r.get('seconds', 0):.1f}" for r in reps)
        t.notes.append(f"6: {label}: {len(reps)} repetitions; per-rep seconds {secs}; worst stall "
                       f"{worst:.1f} ms; frame p50 {fmt(median([r.get('frame_p50_ms') for r in reps]), ' ms', 1)}, "
                       f"worst frame interval {max((r.get('frame_max_ms') or 0) for r in reps):.0f} ms"
                       + app_text + ("" if ok else "; a run FAILED or TIMED OUT (see logs)"))
    if idle:
        t.notes.append(f"6: idle baseline: {len(idle)} repetitions of one batch_echo job that waits 3 s")


def ui_load_rows(t, results):
    reps = [r for r in reps_of(results, "ui-load") if "error" not in r]
    if not reps:
        return
    t.section("6b. Window, Load mode: 1,000 virtual users against the embedded server, charts updating")
    p99 = median([r.get("frame_p99_ms") for r in reps])
    ok = all(r.get("finished") and r.get("failed") == 0 and r.get("lost") == 0 for r in reps)
    t.add("Load mode: p99 frame interval", fmt(p99, " ms", 1), "", "", "<= 33 ms",
          met(p99 is not None and p99 <= 33 and ok))
    t.add("  p99 frame interval less the app's wait for a CPU",
          fmt(median([r.get("frame_net_p99_ms") for r in reps]), " ms", 1), "", "", "(info)", "")
    t.add("  p99 frame's own cost (update, layout, paint)",
          fmt(median([r.get("paint_p99_ms") for r in reps]), " ms", 1), "", "", "(info)", "")
    t.notes.append("6b: " + "; ".join(
        f"{r.get('completed')}/{r.get('submitted')} completed, {r.get('failed')} failed, "
        f"{r.get('lost')} lost, peak {r.get('peak_users')} users, {r.get('frames')} frames in "
        f"{r.get('seconds')} s" for r in reps))


def streaming_rows(t, results):
    """9: the gaps the server made and the client saw, and the client's own delay."""
    goals = {1000: (0.010, 0.005), 5000: (0.050, None)}
    rows = {}
    for n in (100, 1000, 5000, "p2-1000", "p2-5000"):
        runs = [r.get("streaming", {}) for r in reps_of(results, f"streaming-{n}")
                if "error" not in r and (r.get("streaming") or {}).get("stamps")]
        if runs:
            rows[n] = runs
    if not rows:
        return
    t.section("9. streaming quality: N users, stream_text at 20 updates/s each, server stamps (serve --stamp)")
    for n, runs in rows.items():
        def med(path):
            values = []
            for s in runs:
                v = s
                for part in path.split("."):
                    v = (v or {}).get(part)
                values.append(v)
            return median(values)
        delay_p50, delay_p99, delay_max = med("stamps.delay_s.p50"), med("stamps.delay_s.p99"), med("stamps.delay_s.max")
        sent_p50, sent_p99 = med("stamps.sent_gap_s.p50"), med("stamps.sent_gap_s.p99")
        got_p50, got_p99 = med("gap_s.p50"), med("gap_s.p99")
        delay_goal, gap_goal = goals.get(n, (None, None))
        raw = [r for r in reps_of(results, f"streaming-{n}") if "error" not in r]
        label = f"{int(n[3:]):,}, --processes 2" if isinstance(n, str) else f"{n:,}"
        server_cpu = median([r.get("server_cpu_s") for r in raw])
        busy = median([r.get("machine_busy_s") for r in raw])
        wall = median([r.get("duration_s") for r in raw])
        t.add(f"N = {label}: client-added delay p99 (p50, max)",
              fmt(delay_p99 * 1000 if delay_p99 is not None else None, " ms", 1),
              f"{fmt(delay_p50 * 1000 if delay_p50 is not None else None, ' ms', 1)}, "
              f"{fmt(delay_max * 1000 if delay_max is not None else None, ' ms', 0)}", "",
              f"<= {delay_goal * 1000:.0f} ms" if delay_goal else "(info)",
              met(delay_p99 is not None and delay_p99 <= delay_goal) if delay_goal else "")
        diff = abs(got_p50 - sent_p50) if got_p50 is not None and sent_p50 is not None else None
        t.add(f"N = {label}: gap p50 received vs emitted (p99)",
              f"{fmt(got_p50 * 1000 if got_p50 is not None else None, ' ms', 1)} ({fmt(got_p99 * 1000 if got_p99 is not None else None, ' ms', 0)})",
              f"{fmt(sent_p50 * 1000 if sent_p50 is not None else None, ' ms', 1)} ({fmt(sent_p99 * 1000 if sent_p99 is not None else None, ' ms', 0)})",
              fmt(diff * 1000 if diff is not None else None, " ms", 1),
              f"within {gap_goal * 1000:.0f} ms" if gap_goal else "(info)",
              met(diff is not None and diff <= gap_goal) if gap_goal else "")
        hold_p50, hold_p99 = med("stamps.server_hold_s.p50"), med("stamps.server_hold_s.p99")
        t.add(f"N = {label}: server held, made to written p99 (p50)",
              fmt(hold_p99 * 1000 if hold_p99 is not None else None, " ms", 1),
              fmt(hold_p50 * 1000 if hold_p50 is not None else None, " ms", 1), "", "(info)", "")
        t.add(f"N = {label}: CPU s, server / rest of the machine (wall)",
              fmt(server_cpu, " s", 2),
              fmt(busy - server_cpu if busy is not None and server_cpu is not None else None, " s", 2),
              fmt(wall, " s", 1), "(info)", "")
    t.notes.append("9: medians of the runs; client-added delay = the client's handling of an update minus the "
                   "server's write stamp (loopback and the client); server held = its write minus its making "
                   "(the generator's yield); emitted gaps between the write stamps, received gaps as the client "
                   "handled the updates; CPU of the whole machine less the server's is the client's on a quiet machine; "
                   "--processes 2: the largest size's users in two worker processes, each linting its sessions (info)")


def table(results):
    t = Table()
    ingest_rows(t, results)
    burst_rows(t, results)
    machine = results.get("machine") or {}
    cores = machine.get("cores_usable") or machine.get("nproc") or 1
    stream_rows(t, results, cores)
    scaling_rows(t, results, cores)
    memory_rows(t, results)
    ui_rows(t, results)
    ui_load_rows(t, results)
    sessions_rows(t, results)
    streaming_rows(t, results)

    m = results.get("machine", {})
    end = results.get("end", {})
    lines = [t.render(), ""]
    lines.append(f"machine: nproc {m.get('nproc')}, usable cores {m.get('cores_usable', '?')}, CPU {m.get('cpu')}, kernel {m.get('kernel')}; "
                 f"build {m.get('buildtype')}{' (BENCH_QUICK=1)' if m.get('quick') else ''}; "
                 f"load average {m.get('loadavg_start', 0):.2f} at start, "
                 f"{end.get('loadavg_end', 0):.2f} at end; total {end.get('elapsed_s', '?')} s")
    for note in t.notes:
        lines.append("note " + note)
    return "\n".join(lines)


def summary(r):
    if "error" in r:
        return "error: " + str(r["error"])
    b = r.get("bench")
    if (r.get("streaming") or {}).get("stamps"):
        st = r["streaming"]
        return (f"{r.get('completed')}/{r.get('submitted')} completed; delay p50 "
                f"{st['stamps']['delay_s']['p50'] * 1000:.1f} ms p99 {st['stamps']['delay_s']['p99'] * 1000:.1f} ms; "
                f"gap p50 sent {st['stamps']['sent_gap_s']['p50'] * 1000:.1f} ms seen {st['gap_s']['p50'] * 1000:.1f} ms")
    if b == "ui-load":
        return (f"{r.get('completed')}/{r.get('submitted')} completed, {r.get('failed')} failed, "
                f"{r.get('lost')} lost, {r.get('seconds')} s, frame p99 {r.get('frame_p99_ms')} ms "
                f"(p50 {r.get('frame_p50_ms')})")
    if b == "ingest":
        return (f"parse {r.get('parse_fps', 0):,.0f}/s, path {r.get('path_fps', 0):,.0f}/s"
                + (f", real {r['real_fps']:,.0f}/s" if r.get("real_fps") else "")
                + f", verified {r.get('verified')}")
    if b in ("official-burst",) or "submitted" in r:
        lat = r.get("latency_s") or {}
        return (f"{r.get('completed')}/{r.get('submitted')} completed, wall {r.get('wall_s', 0):.2f} s, "
                f"p50 {lat.get('p50') or 0:.3f} s, p99 {lat.get('p99') or 0:.3f} s")
    if b == "raw":
        return (f"emission {r.get('updates_per_s', 0):,.0f} updates/s ({r.get('frames')} frames, "
                f"wall {r.get('wall_s', 0):.3f} s, complete {r.get('complete')}); json-glib alone "
                f"{r.get('parse_updates_per_s', 0):,.0f}/s (immutable "
                f"{r.get('parse_immutable_updates_per_s', 0):,.0f}/s)")
    if b in ("stream", "official-stream"):
        return (f"{r.get('updates_per_s', 0):,.0f} updates/s, wall {r.get('wall_s', 0):.2f} s, "
                f"verified {r.get('verified')}/{r.get('jobs')}")
    if b == "memory":
        return (f"client {r.get('client_bytes_per_job', 0):,.0f} B/job; server "
                f"{r.get('server_rss_before', 0) / 2**20:.1f} -> {r.get('server_rss_peak', 0) / 2**20:.1f}"
                f" -> {r.get('server_rss_after', 0) / 2**20:.1f} MiB")
    if b == "sessions":
        return (f"{r.get('streaming')}/{r.get('sessions')} streams, {r.get('completed')} completed, "
                f"lost {r.get('lost')}; server {r.get('server_bytes_per_session', 0):,.0f} B/session, "
                f"{r.get('server_fds_held')} fds; open {r.get('open_s', 0):.1f} s, "
                f"drain {r.get('drain_s', 0):.1f} s")
    if b == "ui":
        return (f"{r.get('seconds')} s, stall max {r.get('stall_max_ms')} ms, frame p99 "
                f"{r.get('frame_p99_ms')} ms (p50 {r.get('frame_p50_ms')}), status {r.get('status')}")
    return json.dumps(r)[:120]


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--summary":
        print(summary(json.loads(sys.argv[2])))
    elif len(sys.argv) == 2:
        print(table(load(sys.argv[1])))
    else:
        sys.exit("usage: report.py RESULTS.jsonl | --summary JSON")
