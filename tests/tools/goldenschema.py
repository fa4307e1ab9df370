# SPDX-License-Identifier: GPL-3.0-or-later
"""The golden tools' own view of the wire formats: tests/tools/schema/*.proto.

Those files are written from the upstream protos (the path and commit are in each); nothing here
reads tpuscope's proto/ folder, so a field number wrong on either side shows up as a golden that
tpuscope does not reproduce. protoc comes from $TPUSCOPE_PROTOC (the build's protoc, set by
ctest), else from PATH. $TPUSCOPE_GOLDEN_SCHEMA_DIR replaces the schema folder (golden_check.py
points it at a copy with one field number changed, to show that the comparison catches it).
"""
import gzip
import importlib
import os
import shutil
import subprocess
import sys
import tempfile

SCHEMA_DIR = os.environ.get("TPUSCOPE_GOLDEN_SCHEMA_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "schema")


def protoc():
    return os.environ.get("TPUSCOPE_PROTOC") or "protoc"


def read_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def xspace_text_lines(path):
    """The XSpace in `path` (.xplane.pb, gzipped or not) as protobuf text, one line per field."""
    decoded = subprocess.run([protoc(), "-I" + SCHEMA_DIR, "--decode=tensorflow.profiler.XSpace", "xplane.proto"],
                             input=read_bytes(path), stdout=subprocess.PIPE, check=True)
    return decoded.stdout.decode("latin-1").splitlines()


def python_modules():
    """(xplane_pb2, hlo_pb2) compiled from the schema with protoc; needs python3-protobuf."""
    out = tempfile.mkdtemp(prefix="tpuscope_golden_schema_")
    try:
        subprocess.check_call([protoc(), "-I" + SCHEMA_DIR, "--python_out=" + out, "xplane.proto", "hlo.proto"])
        sys.path.insert(0, out)
        modules = importlib.import_module("xplane_pb2"), importlib.import_module("hlo_pb2")
    finally:
        shutil.rmtree(out, ignore_errors=True)  # the modules are loaded: the files are no longer needed
    return modules
