#!/usr/bin/env python3
# One process run for the bench parts that need its CPU and memory exactly: its standard
# output and error to files, and from wait4 its peak RSS (KiB), user and system CPU (s, in
# microseconds: /usr/bin/time prints hundredths, too coarse for a 0.05 s run) and exit status,
# with the wall time, as one JSON object. A process that waits for its own children (load
# --processes) has their CPU in its figures. Usage, or import it and call run ():
#   rusage.py TIME.json OUT ERR -- COMMAND ARGS…
import json
import os
import subprocess
import sys
import time


def run(cmd, out_path, err_path):
    start = time.monotonic()
    with open(out_path, "w") as out, open(err_path, "w") as err:
        process = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
    return {"peak_rss_kb": usage.ru_maxrss, "process_wall_s": round(time.monotonic() - start, 3),
            "user_s": usage.ru_utime, "sys_s": usage.ru_stime,
            "exit": os.waitstatus_to_exitcode(status)}


if __name__ == "__main__":
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        sys.exit("usage: rusage.py TIME.json OUT ERR -- COMMAND ARGS…")
    figures = run(sys.argv[5:], sys.argv[2], sys.argv[3])
    with open(sys.argv[1], "w") as f:
        json.dump(figures, f)
        f.write("\n")
