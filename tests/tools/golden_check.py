#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs one independent golden tool and compares what it prints with the checked-in golden.

A golden under tests/data is the output of a script in tests/tools, not of tpuscope: this check
keeps the two in step, so an edited golden, a changed tool or a wrong field number in the tools'
schema (tests/tools/schema) fails a test instead of going unnoticed.

  golden_check.py --golden tests/data/v6e_ops.golden.csv --input SAMPLE -- xspace_golden.py SAMPLE
  golden_check.py --golden-dir tests/data/hostile -- make_hostile_corpus.py {outdir}
  golden_check.py --golden G --schema-edit xplane.proto 'duration_ps = 3;' 'duration_ps = 9;' \\
      --expect-mismatch -- xspace_golden.py SAMPLE

The tool runs under this interpreter. A missing prerequisite (an --input file, python3-protobuf
for --needs-protobuf) skips the test with exit code 77 and a message saying what to install,
except under CI=true, where it fails: CI installs everything (.ci/packages.txt).
"""
import argparse
import difflib
import filecmp
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def unavailable(message):
    if os.environ.get("CI") == "true":
        print("FAILED (CI=true, so nothing may be missing): " + message)
        sys.exit(1)
    print("SKIPPED: " + message)
    sys.exit(SKIP)


def unified_diff(expected, actual, expected_name, actual_name):
    lines = difflib.unified_diff(expected.decode("utf-8", "replace").splitlines(True),
                                 actual.decode("utf-8", "replace").splitlines(True), expected_name, actual_name)
    return "".join(list(lines)[:200])


def comparable(data):
    """File bytes with gzip members inflated, so that another zlib's compression does not count."""
    header = b""
    if data.startswith(b"TPUSCOPE-SHARE 1\n"):
        header, data = data[:17], data[17:]
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return header + data


def compare_dirs(expected_dir, actual_dir):
    expected = sorted(os.listdir(expected_dir))
    actual = sorted(os.listdir(actual_dir))
    problems = []
    if expected != actual:
        problems.append("files differ: golden has %s, the tool wrote %s" % (expected, actual))
    for name in sorted(set(expected) & set(actual)):
        a, b = os.path.join(expected_dir, name), os.path.join(actual_dir, name)
        if filecmp.cmp(a, b, shallow=False):
            continue
        with open(a, "rb") as f, open(b, "rb") as g:
            if comparable(f.read()) != comparable(g.read()):
                problems.append("%s differs from what the tool writes" % name)
    return problems


def main():
    parser = argparse.ArgumentParser()
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--golden", help="the file the tool's standard output must equal")
    target.add_argument("--golden-dir", help="the folder the tool must write ({outdir} in its arguments)")
    parser.add_argument("--input", action="append", default=[], help="a file the tool reads (skip if absent)")
    parser.add_argument("--needs-protobuf", action="store_true", help="the tool imports google.protobuf")
    parser.add_argument("--schema-edit", nargs=3, metavar=("PROTO", "FROM", "TO"),
                        help="run over a copy of tests/tools/schema with FROM replaced by TO in PROTO")
    parser.add_argument("--expect-mismatch", action="store_true",
                        help="pass only if the output differs from the golden (with --schema-edit)")
    parser.add_argument("tool", nargs=argparse.REMAINDER, help="-- TOOL.py ARGS...")
    args = parser.parse_args()
    command = args.tool[1:] if args.tool[:1] == ["--"] else args.tool
    if not command:
        parser.error("no tool given")

    for path in args.input:
        if not os.path.exists(path):
            unavailable("%s is missing (the samples live beside the clone, in ../shared/samples)" % path)
    if args.needs_protobuf:
        try:
            import google.protobuf  # noqa: F401
        except ImportError:
            unavailable("%s has no google.protobuf: install python3-protobuf (Debian) for %s"
                        % (sys.executable, os.path.basename(command[0])))

    env = dict(os.environ)
    scratch = tempfile.mkdtemp(prefix="tpuscope_golden_check_")
    try:
        if args.schema_edit:
            proto, old, new = args.schema_edit
            schema = os.path.join(scratch, "schema")
            shutil.copytree(os.path.join(HERE, "schema"), schema)
            with open(os.path.join(schema, proto)) as f:
                text = f.read()
            if old not in text:
                print("FAILED: %r is not in schema/%s" % (old, proto))
                return 1
            with open(os.path.join(schema, proto), "w") as f:
                f.write(text.replace(old, new))
            env["TPUSCOPE_GOLDEN_SCHEMA_DIR"] = schema
        outdir = os.path.join(scratch, "out")
        os.mkdir(outdir)
        tool = os.path.join(HERE, command[0])
        argv = [sys.executable, tool] + [a.replace("{outdir}", outdir) for a in command[1:]]
        run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        if run.returncode != 0:
            if args.expect_mismatch:
                print("the tool failed over the edited schema, as it should:\n" + run.stderr.decode("utf-8", "replace"))
                return 0
            print("FAILED: %s exited with %d:\n%s" % (" ".join(argv), run.returncode,
                                                     run.stderr.decode("utf-8", "replace")))
            return 1

        if args.golden_dir:
            problems = compare_dirs(args.golden_dir, outdir)
            actual_where = outdir
        else:
            with open(args.golden, "rb") as f:
                expected = f.read()
            problems = [] if expected == run.stdout else [
                unified_diff(expected, run.stdout, args.golden, "output of " + os.path.basename(tool))]
            actual_where = None
        if args.expect_mismatch:
            if problems:
                print("the edited schema changes the output, as it should (%s %r -> %r)" % tuple(args.schema_edit))
                return 0
            print("FAILED: with %s edited (%r -> %r) the output still equals the golden: the check cannot "
                  "see a wrong field number" % tuple(args.schema_edit))
            return 1
        if not problems:
            print("the tool's output equals %s" % (args.golden or args.golden_dir))
            return 0
        if actual_where:
            kept = tempfile.mkdtemp(prefix="tpuscope_golden_actual_")
            shutil.copytree(actual_where, kept, dirs_exist_ok=True)
            problems.append("the tool's files are in " + kept)
        print("FAILED: the golden is not what the tool makes. If the tool is right, regenerate the golden with "
              "it (see tests/data/README.md); if the golden is right, the tool or its schema changed.")
        print("\n".join(problems))
        return 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
