#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Independent op breakdown of an XSpace, for golden files.

Decodes the file with `protoc --decode` over this folder's own schema (schema/xplane.proto,
written from the upstream proto; no tpuscope code or proto involved), reads the text form and
prints one CSV row per (program, op) over the `XLA Ops` lines of the `/device:TPU:N` planes:
occurrences, total time (device timespan when present, as xprof does), flops, bytes_accessed and
HBM bytes (memory_access_breakdown, memory_space 1).

  python3 tests/tools/xspace_golden.py FILE.xplane.pb > tests/data/NAME.golden.csv

With `--by framework-op` it prints one tab-separated row per framework op instead: the `tf_op`
stat with its trailing ":Type" removed (JAX names keep colons inside brackets), the number of
occurrences, total time and flops of the ops that carry it.

Needs python3 and protoc (Debian: protobuf-compiler).
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from goldenschema import xspace_text_lines  # noqa: E402  (the tools' own schema)


def parse(lines):
    """Parses protobuf text format into nested dicts of lists."""
    root = {}
    stack = [root]
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        if line.endswith("{"):
            key = line[:-1].strip()
            child = {}
            stack[-1].setdefault(key, []).append(child)
            stack.append(child)
            continue
        key, _, value = line.partition(": ")
        if value.startswith('"'):
            value = bytes(value[1:-1], "latin-1").decode("unicode_escape").encode("latin-1")
        stack[-1].setdefault(key, []).append(value)
    return root


def one(d, key, default=None):
    v = d.get(key)
    return v[0] if v else default


def stat_value(stat, names):
    for k in ("int64_value", "uint64_value"):
        if k in stat:
            return int(stat[k][0])
    if "double_value" in stat:
        return float(stat["double_value"][0])
    if "str_value" in stat:
        return stat["str_value"][0]
    if "bytes_value" in stat:
        return stat["bytes_value"][0]
    if "ref_value" in stat:
        return names.get(int(stat["ref_value"][0]), b"")
    return None


def varints(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def hbm_bytes(blob):
    """Sums bytes_accessed of MemoryAccessed entries with memory_space 1.

    The stat holds a serialized tensorflow.profiler.MemoryAccessBreakdown: repeated MemoryAccessed
    (field 1) of {operation_type 1, memory_space 2, bytes_accessed 3} (docs/FORMATS.md §2)."""
    pos, total, found = 0, 0, False
    while pos < len(blob):
        tag, pos = varints(blob, pos)
        length, pos = varints(blob, pos)
        entry = blob[pos:pos + length]
        pos += length
        found = True
        p, space, nbytes = 0, 0, 0
        while p < len(entry):
            t, p = varints(entry, p)
            v, p = varints(entry, p)
            if t >> 3 == 2:
                space = v
            elif t >> 3 == 3:
                nbytes = v
        if space == 1:
            total += nbytes
    return total if found else None


def framework_op(tf_op):
    """'unet/conv2d_18/Conv2D:Conv2D' -> 'unet/conv2d_18/Conv2D'; 'jit(f)/add:' -> 'jit(f)/add'."""
    head, sep, tail = tf_op.rpartition(":")
    if not sep or any(c in tail for c in "/)]}"):
        return tf_op
    return head


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file", help="an .xplane.pb, gzipped or not")
    parser.add_argument("--by", choices=["program-op", "framework-op"], default="program-op")
    args = parser.parse_args()
    by_framework_op = args.by == "framework-op"
    space = parse(xspace_text_lines(args.file))
    programs = {}
    for plane in space.get("planes", []):
        if one(plane, "name") == b"/host:metadata":
            for entry in plane.get("event_metadata", []):
                md = entry["value"][0]
                name = one(md, "name", b"").decode()
                m = re.match(r"(.*)\((\d+)\)$", name)
                if m:
                    programs[int(m.group(2))] = m.group(1)
    rows = {}
    for plane in space.get("planes", []):
        if not re.match(rb"^/device:TPU:\d+$", one(plane, "name", b"")):
            continue
        names = {int(one(e["value"][0], "id", 0)): one(e["value"][0], "name", b"") for e in plane.get("stat_metadata", [])}
        metas = {}
        for entry in plane.get("event_metadata", []):
            md = entry["value"][0]
            stats = {}
            for st in md.get("stats", []):
                stats[names.get(int(one(st, "metadata_id", 0)), b"").decode()] = stat_value(st, names)
            display = one(md, "display_name", b"") or one(md, "name", b"")
            metas[int(one(entry, "key", 0))] = (display.decode(), stats)
        for line in plane.get("lines", []):
            if one(line, "name") != b"XLA Ops":
                continue
            for ev in line.get("events", []):
                name, stats = metas[int(one(ev, "metadata_id", 0))]
                dur = int(one(ev, "duration_ps", 0))
                ev_stats = {names.get(int(one(s, "metadata_id", 0)), b"").decode(): stat_value(s, names)
                            for s in ev.get("stats", [])}
                if "device_duration_ps" in ev_stats and "device_offset_ps" in ev_stats:
                    dur = int(ev_stats["device_duration_ps"])
                pid = int(stats.get("program_id", 0) or 0)
                key = (programs.get(pid, "program %d" % pid if pid else ""), name)
                if by_framework_op:
                    key = ("", framework_op((stats.get("tf_op") or b"").decode()) or "(not recorded)")
                r = rows.setdefault(key, {"occ": 0, "time": 0, "flops": 0.0, "bytes": 0.0, "hbm": 0.0,
                                          "category": (stats.get("hlo_category") or b"").decode()})
                flops = float(stats.get("flops") or stats.get("model_flops") or 0)
                nbytes = float(stats.get("bytes_accessed") or 0)
                breakdown = stats.get("memory_access_breakdown")
                hbm = hbm_bytes(breakdown) if isinstance(breakdown, bytes) else None
                r["occ"] += 1
                r["time"] += dur
                r["flops"] += flops
                r["bytes"] += nbytes
                r["hbm"] += nbytes if hbm is None else hbm
    if by_framework_op:
        print("framework_op\toccurrences\ttotal_time_ps\tflops")
        for (_, name), r in sorted(rows.items(), key=lambda kv: (-kv[1]["time"], kv[0][1])):
            print("%s\t%d\t%d\t%.17g" % (name, r["occ"], r["time"], r["flops"]))
        return
    print("program,name,category,occurrences,total_time_ps,flops,bytes_accessed,hbm_bytes")
    for (program, name), r in sorted(rows.items(), key=lambda kv: (-kv[1]["time"], kv[0][1])):
        print("%s,%s,%s,%d,%d,%.17g,%.17g,%.17g" % (program, name, r["category"], r["occ"], r["time"],
                                                   r["flops"], r["bytes"], r["hbm"]))


if __name__ == "__main__":
    main()
