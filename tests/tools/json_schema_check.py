#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs every tpuscope-cli command that writes JSON on every sample and validates what it prints
against the JSON Schema files in resources/schema (Draft 2020-12, with python3-jsonschema).

Usage: json_schema_check.py CLI SCHEMA_DIR SAMPLES_DIR DEMO [--dump DIR]

The inputs: the real samples, the bundled demo, the demo recompiled at global batch 1024, the demo
10 % slower, a small pod log dir, and share files and share text of the demo and of the v6e sample.
Every JSON output must carry schema_version and validate; a command that prints nothing (a file it
cannot read, no TPU ops) is listed but not a failure. Exit 0 on success, 1 on a failure, 77 when
jsonschema is missing (a failure under CI=true). --dump writes each output to DIR for reading.
"""
import json
import os
import subprocess
import sys
import tempfile

SCHEMA_OF = {"open-text": "summary"}  # commands that print another command's JSON
FILE_COMMANDS = ["summary", "ops", "steps", "hosts", "advise", "memory"]


def run(cli, args):
    result = subprocess.run([cli] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    return result.returncode, result.stdout.decode("utf-8")


def prepare(cli, samples, demo, work):
    """The inputs: (name, path) pairs; the share text for open-text separately."""
    inputs = [(os.path.basename(demo), demo)]
    for name in sorted(os.listdir(samples)) if os.path.isdir(samples) else []:
        if name.endswith((".pb", ".json", ".gz")):
            inputs.append((name, os.path.join(samples, name)))
    made = {
        "recompiled.xplane.pb": ["synth", "origin-story:global_batch=1024"],
        "slower.xplane.pb": ["synth", "origin-story:slowdown_pct=10"],
        "pod": ["synth", "pod:hosts=2,chips=2"],
    }
    for name, args in made.items():
        path = os.path.join(work, name)
        code, _ = run(cli, args + ["-o", path])
        if code != 0:
            raise SystemExit("cannot write %s with tpuscope-cli %s" % (name, " ".join(args)))
        inputs.append((name, path))
    texts = []
    for name, path in list(inputs):
        if name in (os.path.basename(demo), "tpu_v6e_inference.xplane.pb"):
            share = os.path.join(work, name + ".tpuscope")
            if run(cli, ["share", path, "-o", share])[0] == 0:
                inputs.append((name + ".tpuscope", share))
            text = os.path.join(work, name + ".txt")
            if run(cli, ["share", path, "--text", "-o", text])[0] == 0:
                texts.append((name + ".txt", text))
    return inputs, texts


def top_op(cli, path):
    code, out = run(cli, ["ops", path, "--format", "json", "--top", "1"])
    try:
        rows = json.loads(out).get("rows", []) if code == 0 else []
    except ValueError:
        return None
    return rows[0] if rows else None


def invocations(cli, inputs, texts):
    """(command, label, args) of every run."""
    out = [("thresholds", "-", ["thresholds", "--format", "json"])]
    for name, path in inputs:
        for command in FILE_COMMANDS:
            out.append((command, name, [command, path, "--format", "json"]))
        op = top_op(cli, path)
        if op:
            args = ["fusion", path, op["name"], "--format", "json"]
            out.append(("fusion", name, args + (["--program", op["program"]] if op.get("program") else [])))
    for name, path in texts:
        out.append(("open-text", name, ["open-text", path, "--format", "json"]))
    paths = dict(inputs)
    demo = inputs[0][1]
    pairs = [(inputs[0][0], "recompiled.xplane.pb"), (inputs[0][0], "slower.xplane.pb"), (inputs[0][0], inputs[0][0]),
             (inputs[0][0], "tpu_v6e_inference.xplane.pb"), ("tpu_v6e_inference.xplane.pb",
                                                             "tpu_v6e_inference.xplane.pb.tpuscope"),
             (inputs[0][0] + ".tpuscope", inputs[0][0]), ("pod", "pod")]
    for a, b in pairs:
        if a in paths and b in paths:
            for command in ("diff", "gate"):
                out.append((command, a + " vs " + b, [command, paths[a], paths[b], "--format", "json"]))
    assert demo
    return out


def main(argv):
    if len(argv) < 5:
        print(__doc__)
        return 2
    cli, schema_dir, samples, demo = argv[1:5]
    dump = argv[argv.index("--dump") + 1] if "--dump" in argv else None
    try:
        import jsonschema
    except ImportError:
        print("python3-jsonschema is missing: the JSON outputs are not validated")
        return 1 if os.environ.get("CI") == "true" else 77
    schemas = {}
    for name in sorted(os.listdir(schema_dir)):
        if name.endswith(".schema.json"):
            with open(os.path.join(schema_dir, name), encoding="utf-8") as f:
                schema = json.load(f)
            jsonschema.Draft202012Validator.check_schema(schema)
            schemas[name[: -len(".schema.json")]] = jsonschema.Draft202012Validator(schema)
    failures, checked, empty = [], 0, []
    with tempfile.TemporaryDirectory(prefix="tpuscope-schemas.") as work:
        inputs, texts = prepare(cli, samples, demo, work)
        for command, label, args in invocations(cli, inputs, texts):
            code, out = run(cli, args)
            if not out.strip():
                empty.append("%s %s (exit %d)" % (command, label, code))
                continue
            where = "%s on %s" % (command, label)
            try:
                document = json.loads(out)
            except ValueError as e:
                failures.append("%s: not JSON: %s" % (where, e))
                continue
            if dump:
                os.makedirs(dump, exist_ok=True)
                safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in label)
                with open(os.path.join(dump, "%s.%s.json" % (command, safe)), "w", encoding="utf-8") as f:
                    f.write(out)
            validator = schemas.get(SCHEMA_OF.get(command, command))
            if validator is None:
                failures.append("%s: no schema %s.schema.json" % (where, SCHEMA_OF.get(command, command)))
                continue
            errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
            for e in errors[:5]:
                failures.append("%s: /%s: %s" % (where, "/".join(str(p) for p in e.absolute_path), e.message[:300]))
            # The check can fail: the same output without its version, or with a field it does not
            # declare, is refused.
            if isinstance(document, dict) and not errors:
                for broken in ({k: v for k, v in document.items() if k != "schema_version"},
                               dict(document, undeclared_field=1)):
                    if validator.is_valid(broken):
                        failures.append("%s: the schema accepts a broken output" % where)
            checked += 1
    for line in empty:
        print("no JSON (nothing to validate): " + line)
    for line in failures:
        print("FAIL " + line)
    print("%d JSON outputs validated against %d schemas, %d failures" % (checked, len(schemas), len(failures)))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
