#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The README's two commands (issue 24): the first builds only the programs it opens, the test
command builds the rest before ctest, and .ci/run runs exactly that test command.
Usage: readme_commands_check.py SOURCE_DIR"""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
readme = (root / "README.md").read_text(encoding="utf-8")
ci = (root / ".ci" / "run").read_text(encoding="utf-8").splitlines()
failures = []

quick = readme.split("## Quick start", 1)[-1]
blocks = re.findall(r"```sh\n(.*?)```", quick, re.S)
if len(blocks) < 2:
    sys.exit("README: no Quick start section with a first command and a test command")
first = blocks[0].strip()
test = blocks[1].strip()

builds = re.findall(r"cmake --build build[^&]*", first)
if len(builds) != 1 or builds[0].split("--target", 1)[-1].split() != ["tpuscope", "tpuscope-cli"]:
    failures.append(f"the first command must build the targets tpuscope tpuscope-cli only: {builds}")
if not first.endswith("./build/app/tpuscope --demo"):
    failures.append("the first command must end by opening the demo")
if "works as root without sudo" not in quick or "as a user with sudo" not in quick:
    failures.append("the sentence that both commands work as root and with sudo is gone")
if not re.match(r'cmake --build build -j"\$\(nproc\)" && ctest --test-dir build ', test):
    failures.append(f"the test command must build everything before ctest: {test}")
# `|| exit 1` may follow it there: set -e does not stop on a command that fails inside an && list.
if not any(line.strip() in (test, test + " || exit 1") for line in ci):
    failures.append(f".ci/run does not run exactly the README's test command: {test}")

for f in failures:
    print("FAIL:", f)
print("README commands:", "ok" if not failures else f"{len(failures)} problem(s)")
sys.exit(1 if failures else 0)
