#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The per-op utilizations an xprof op_profile.json records for itself, read independently of tpuscope.

xprof's op profile (FORMATS.md §4.2, §7) stores on every node `metrics.flops` = min(U, 1) x time
fraction, where the time fraction is the node's rawTime over the root's, and `bandwidthUtils[0]` =
the HBM bandwidth utilization (MEM_BW_TYPE_HBM_RW). The UI divides the first back by the time
fraction. This script walks the byProgram tree with the stdlib json module only and prints, for the
N ops with the most time, the utilizations xprof shows, so tpuscope's xprof columns can be checked
against the file's own numbers.

Ops: nodes with an `xla` member below the program level. A node named "... and its duplicate(s)"
only groups ops whose own metrics add up to it: its children are the ops. Fused instructions carry
no time and are skipped.

Usage: op_profile_metrics.py FILE.op_profile.json[.gz] [--top N] > tests/data/v5_op_profile_xprof_metrics.golden.csv
"""
import argparse
import csv
import gzip
import json
import sys


def metric(node, name, default=0.0):
    return node.get("metrics", {}).get(name, default)


def leaves(node, program, out, depth=0):
    if depth > 0 and "xla" in node:
        children = [c for c in node.get("children", []) if "xla" in c and metric(c, "rawTime") > 0]
        own = metric(node, "rawTime")
        if children and abs(sum(metric(c, "rawTime") for c in children) - own) <= 1e-6 * max(own, 1.0):
            for child in children:
                leaves(child, program, out, depth + 1)
            return
        if own > 0:
            out.append((program, node))
        return
    name = node.get("name", "")
    if depth > 0 and name.endswith(")") and "(" in name:
        head, _, tail = name.rpartition("(")
        if tail[:-1].isdigit():
            program = head
    for child in node.get("children", []):
        leaves(child, program, out, depth + 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    opener = gzip.open if args.file.endswith(".gz") else open
    with opener(args.file, "rt") as f:
        document = json.load(f)
    root = document["byProgram"]
    root_time = metric(root, "rawTime")
    ops = []
    leaves(root, "", ops)
    ops.sort(key=lambda item: (-metric(item[1], "rawTime"), item[1]["name"]))
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["name", "program", "time_fraction", "flops_utilization", "hbm_utilization"])
    for program, node in ops[: args.top]:
        fraction = metric(node, "rawTime") / root_time
        flops = min(1.0, metric(node, "flops") / fraction) if fraction > 0 else 0.0
        utils = node.get("metrics", {}).get("bandwidthUtils", [])
        hbm = utils[0] if utils else ""
        name = node["name"].lstrip("%")
        writer.writerow([name, program, "%.10g" % fraction, "%.10g" % flops, "" if hbm == "" else "%.10g" % hbm])


if __name__ == "__main__":
    main()
