#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that the model's layers use only the layers under them (ARCHITECTURE.md, "Layers").

Two checks, so neither a header-only include nor a call through a forward declaration slips by:
  1. includes: every `#include "…"` in model/<layer>/ names a file of the layer itself or of a
     layer it may use;
  2. symbols: every tpuscope symbol a layer's library leaves undefined (`nm --undefined-only`)
     is defined by the layer itself or by a layer it may use.

Usage: check_layers.py SOURCE_DIR [LAYER=path/to/libtpuscope_LAYER.a ...]
Exit 0 when both hold; otherwise prints each violation (file, include or symbol) and exits 1.
"""
import os
import re
import subprocess
import sys

# What each layer may use besides itself. Keep in step with model/CMakeLists.txt.
ALLOWED = {
    "core": set(),
    "loader": {"core"},
    "analysis": {"core"},
    "report": {"analysis", "core"},
    "share": {"report", "analysis", "loader", "core"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_violations(source_dir):
    found = []
    model = os.path.join(source_dir, "model")
    for layer, allowed in ALLOWED.items():
        folder = os.path.join(model, layer)
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for target in INCLUDE.findall(text):
                resolved = os.path.normpath(os.path.join(folder, target))
                if not os.path.exists(resolved):
                    # "core/x.h" style, relative to model/.
                    resolved = os.path.normpath(os.path.join(model, target))
                rel = os.path.relpath(resolved, model)
                used = rel.split(os.sep)[0] if os.sep in rel else layer
                if used not in ALLOWED:
                    continue  # generated protobuf headers, resources: not a model layer
                if used != layer and used not in allowed:
                    found.append(f"model/{layer}/{name}: includes \"{target}\" from layer '{used}', "
                                 f"but {layer} may use only {sorted(allowed) or 'nothing'}")
    return found


def symbols(library, undefined):
    flag = "--undefined-only" if undefined else "--defined-only"
    out = subprocess.run(["nm", "-C", flag, library], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split(None, 2 if not undefined else 1)
        if not parts or line.endswith(":"):
            continue
        name = parts[-1]
        if not undefined:
            # Strong definitions only: a weak one (an inline function, a template instance) is
            # emitted by every user and belongs to no layer.
            if len(parts) < 3 or parts[1] not in "TDBRSG":
                continue
        if name.startswith("tpuscope::"):
            names.add(name)
    return names


def symbol_violations(libraries):
    defined = {layer: symbols(path, undefined=False) for layer, path in libraries.items()}
    found = []
    for layer, path in libraries.items():
        reachable = set(defined[layer])
        for other in ALLOWED[layer]:
            reachable |= defined.get(other, set())
        everything = set().union(*defined.values())
        for name in sorted(symbols(path, undefined=True)):
            if name in reachable or name not in everything:
                continue  # inline or template instantiations are not a layer's to give
            owner = next(l for l, names in defined.items() if name in names)
            found.append(f"libtpuscope_{layer}.a uses {name} from layer '{owner}', "
                         f"but {layer} may use only {sorted(ALLOWED[layer]) or 'nothing'}")
    return found


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    libraries = dict(arg.split("=", 1) for arg in argv[2:])
    unknown = set(libraries) - set(ALLOWED)
    if unknown:
        print(f"unknown layers: {sorted(unknown)}")
        return 2
    problems = include_violations(argv[1]) + symbol_violations(libraries)
    for p in problems:
        print(p)
    if not problems:
        print(f"layers ok: {', '.join(f'{l} uses {sorted(a) or []}' for l, a in ALLOWED.items())}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
