#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Independent per-host late steps of a pod log dir (tpuscope-cli synth pod:...), for tests.

Decodes each host's XSpace as xspace_golden.py does (protoc over schema/xplane.proto; no tpuscope
code or proto involved) and prints one CSV row per host: its XSpace hostname, its steps, its clock
offset against the first host and its late steps. The definitions are the ones the hosts
analysis documents (model/analysis/hosts.h), computed here from the raw events:
- a step on a core lasts from one `XLA Modules` run's start to the next one's (the last: its end);
- the step's synchronizing collective is the last all-reduce of the step; a host's arrival is the
  latest start of it over the host's cores, its departure the median end;
- a host's clock offset is the median over steps of its departure minus the first host's;
- a host is late in a step when its aligned arrival is at least 2 % of the average step after the
  other hosts' median arrival, and within that margin of the latest host.

  python3 tests/tools/pod_golden.py LOGDIR/plugins/profile/RUN

Needs python3 and protoc (Debian: protobuf-compiler).
"""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from goldenschema import xspace_text_lines  # noqa: E402  (the tools' own schema)
from xspace_golden import parse, one  # noqa: E402  (the shared text-format reader)

LATE_MARGIN = 0.02


def host_events(path):
    space = parse(xspace_text_lines(path))
    name = one(space, "hostnames", b"").decode("utf-8", "replace")
    cores = []  # per core: (module runs [(start, end)], all-reduces [(start, end)])
    for plane in space.get("planes", []):
        if not re.match(rb"^/device:TPU:\d+$", one(plane, "name", b"")):
            continue
        metas = {int(one(e, "key", 0)): one(e["value"][0], "display_name", b"") or one(e["value"][0], "name", b"")
                 for e in plane.get("event_metadata", [])}
        runs, reduces = [], []
        for line in plane.get("lines", []):
            base = int(one(line, "timestamp_ns", 0)) * 1000
            for ev in line.get("events", []):
                start = base + int(one(ev, "offset_ps", 0))
                end = start + int(one(ev, "duration_ps", 0))
                if one(line, "name") == b"XLA Modules":
                    runs.append((start, end))
                elif one(line, "name") == b"XLA Ops" and metas[int(one(ev, "metadata_id", 0))].startswith(b"all-reduce"):
                    reduces.append((start, end))
        cores.append((sorted(runs), sorted(reduces)))
    return name, cores


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: pod_golden.py RUN_DIR")
    run = sys.argv[1]
    hosts = [host_events(os.path.join(run, f)) for f in sorted(os.listdir(run)) if f.endswith(".xplane.pb")]
    # Times from the earliest run start, so that medians (which average two values) stay exact in a
    # double: absolute picoseconds since the epoch need 71 bits.
    base = min(runs[0][0] for _, cores in hosts for runs, _ in cores if runs)
    hosts = [(name, [([(s - base, e - base) for s, e in runs], [(s - base, e - base) for s, e in reduces])
                     for runs, reduces in cores]) for name, cores in hosts]
    windows = []
    for _, cores in hosts:
        for runs, _ in cores:
            for i, (s, e) in enumerate(runs):
                windows.append((runs[i + 1][0] if i + 1 < len(runs) else e) - s)
    avg_step = sum(windows) / len(windows)
    steps = min(len(runs) for _, cores in hosts for runs, _ in cores)
    # Each step holds one all-reduce per core here (the synth's pod): the k-th is step k's.
    arrival = [[max(c[1][k][0] for c in cores) for k in range(steps)] for _, cores in hosts]
    departure = [[statistics.median(c[1][k][1] for c in cores) for k in range(steps)] for _, cores in hosts]
    offset = [statistics.median(departure[h][k] - departure[0][k] for k in range(steps)) for h in range(len(hosts))]
    late = [0] * len(hosts)
    for k in range(steps):
        aligned = [arrival[h][k] - offset[h] for h in range(len(hosts))]
        latest = max(aligned)
        for h in range(len(hosts)):
            others = [aligned[o] for o in range(len(hosts)) if o != h]
            if others and aligned[h] - statistics.median(others) >= LATE_MARGIN * avg_step \
                    and aligned[h] >= latest - LATE_MARGIN * avg_step:
                late[h] += 1
    print("name,steps,clock_offset_ps,late_steps")
    for h, (name, _) in enumerate(hosts):
        print("%s,%d,%d,%d" % (name, steps, round(offset[h]), late[h]))


if __name__ == "__main__":
    main()
