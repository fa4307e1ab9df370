#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Independent per-program run statistics of an XSpace, for golden files.

Decodes the file as xspace_golden.py does (protoc over schema/xplane.proto; no tpuscope code or
proto involved) and prints one CSV row per program on the `XLA Modules` lines of the
`/device:TPU:N` planes: runs per core, average, min, max and population standard deviation of the
run time (ps, the device timespan when both device stats exist, as xprof does), by total time.

  python3 tests/tools/steps_golden.py FILE.xplane.pb > tests/data/NAME.golden.csv

Needs python3 and protoc (Debian: protobuf-compiler).
"""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from goldenschema import xspace_text_lines  # noqa: E402  (the tools' own schema)
from xspace_golden import parse, one, stat_value  # noqa: E402  (the shared text-format reader)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: steps_golden.py FILE.xplane.pb")
    space = parse(xspace_text_lines(sys.argv[1]))
    runs = {}  # name -> {core: [durations]}
    for plane in space.get("planes", []):
        m = re.match(rb"^/device:TPU:(\d+)$", one(plane, "name", b""))
        if not m:
            continue
        core = int(m.group(1))
        names = {int(one(e["value"][0], "id", 0)): one(e["value"][0], "name", b"") for e in plane.get("stat_metadata", [])}
        metas = {int(one(e, "key", 0)): one(e["value"][0], "name", b"").decode() for e in plane.get("event_metadata", [])}
        for line in plane.get("lines", []):
            if one(line, "name") != b"XLA Modules":
                continue
            for ev in line.get("events", []):
                dur = int(one(ev, "duration_ps", 0))
                st = {names.get(int(one(s, "metadata_id", 0)), b"").decode(): stat_value(s, names)
                      for s in ev.get("stats", [])}
                if "device_duration_ps" in st and "device_offset_ps" in st:
                    dur = int(st["device_duration_ps"])
                name = re.sub(r"\(\d+\)$", "", metas[int(one(ev, "metadata_id", 0))])
                runs.setdefault(name, {}).setdefault(core, []).append(dur)
    print("program,runs_per_core,avg_ps,min_ps,max_ps,stddev_ps")
    rows = []
    for name, by_core in runs.items():
        all_runs = [d for ds in by_core.values() for d in ds]
        avg = sum(all_runs) / len(all_runs)
        std = math.sqrt(sum((d - avg) ** 2 for d in all_runs) / len(all_runs))
        rows.append((sum(all_runs), name, len(all_runs) / len(by_core), avg, min(all_runs), max(all_runs), std))
    for total, name, per_core, avg, lo, hi, std in sorted(rows, key=lambda r: (-r[0], r[1])):
        print("%s,%.17g,%.17g,%d,%d,%.17g" % (name, per_core, avg, lo, hi, std))


if __name__ == "__main__":
    main()
