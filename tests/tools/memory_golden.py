#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Independent HBM figures of every module in an XSpace, for golden files.

Decodes the XSpace and its embedded xla.HloProtos with python3-protobuf over this folder's own
schema (schema/xplane.proto and schema/hlo.proto, written from the upstream protos; no tpuscope
code or proto involved) and applies xprof's memory-viewer rules: the heap is simulated from one
heap-simulator trace, the peak adds every indefinite allocation.

  /usr/bin/python3 tests/tools/memory_golden.py FILE.xplane.pb > tests/data/NAME.memory.golden.json

Needs protoc and python3-protobuf (Debian: protobuf-compiler, python3-protobuf).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from goldenschema import python_modules, read_bytes  # noqa: E402  (the tools' own schema)


def hlo_protos(space):
    for plane in space.planes:
        if plane.name != "/host:metadata":
            continue
        stat_names = {k: v.name for k, v in plane.stat_metadata.items()}
        for key in sorted(plane.event_metadata):
            for stat in plane.event_metadata[key].stats:
                if stat_names.get(stat.metadata_id) in ("Hlo Proto", "HLO Proto"):
                    yield stat.bytes_value


def indefinite(a):
    return a.is_thread_local or a.is_entry_computation_parameter or a.is_constant or a.maybe_live_out


def module_memory(hlo, color=0):
    ba = hlo.buffer_assignment
    instruction_ids = {i.id for c in hlo.hlo_module.computations for i in c.instructions}
    proto_by_id = {b.id: b for b in ba.logical_buffers}
    # Only buffers that an allocation holds (and whose instruction exists) take part, as in xprof.
    alloc_of = {}
    for a in ba.buffer_allocations:
        for assigned in a.assigned:
            b = proto_by_id.get(assigned.logical_buffer_id)
            if b is not None and b.defined_at.instruction_id in instruction_ids:
                alloc_of[b.id] = a
    allocations = [a for a in ba.buffer_allocations if a.color == color]

    # Which trace: tied (via its first event's buffer) to a non-indefinite allocation of the
    # colour, else the one with the most events on buffers of the colour.
    trace_of_alloc = {}
    for i, t in enumerate(ba.heap_simulator_traces):
        if t.events and t.events[0].buffer_id in alloc_of:
            trace_of_alloc[alloc_of[t.events[0].buffer_id].index] = i
    chosen = -1
    for a in sorted(allocations, key=lambda a: a.index):
        if not indefinite(a) and a.index in trace_of_alloc:
            chosen = trace_of_alloc[a.index]
            break
    if chosen < 0:
        best = 0
        for i, t in enumerate(ba.heap_simulator_traces):
            n = sum(1 for e in t.events if e.buffer_id in alloc_of and proto_by_id[e.buffer_id].color == color)
            if n > best:
                chosen, best = i, n

    peak = 0
    if chosen >= 0:
        ref = {}
        canonical = {}

        def root(b):
            while b in canonical:
                b = canonical[b]
            return b

        heap = 0
        for e in ba.heap_simulator_traces[chosen].events:
            if e.buffer_id not in alloc_of:
                continue
            if e.kind == 0:  # ALLOC
                r = root(e.buffer_id)
                ref[r] = ref.get(r, 0) + 1
                heap += proto_by_id[e.buffer_id].size
            elif e.kind == 1:  # FREE
                r = root(e.buffer_id)
                ref[r] = ref.get(r, 0) - 1
                if ref[r] < 0:
                    raise SystemExit("buffer %d freed twice" % e.buffer_id)
                if ref[r] == 0:
                    heap -= proto_by_id[r].size
            elif e.kind == 2:  # SHARE_WITH
                c = e.share_with_canonical_id
                if c not in alloc_of:
                    continue
                canonical[e.buffer_id] = c
                r = root(c)
                ref[r] = ref.get(r, 0) + 1
                if ref[r] == 1:
                    heap += proto_by_id[c].size
            peak = max(peak, heap)

    indefinite_bytes = sum(a.size for a in allocations if indefinite(a))
    return {
        "name": hlo.hlo_module.name,
        "peak_heap_bytes": peak + indefinite_bytes,
        "total_allocation_bytes": sum(a.size for a in allocations),
        "indefinite_bytes": indefinite_bytes,
        "entry_parameter_bytes": sum(a.size for a in allocations if a.is_entry_computation_parameter),
        "maybe_live_out_bytes": sum(a.size for a in allocations if a.maybe_live_out),
    }


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: memory_golden.py FILE.xplane.pb")
    xplane_pb2, hlo_pb2 = python_modules()
    space = xplane_pb2.XSpace()
    space.ParseFromString(read_bytes(sys.argv[1]))
    modules = []
    for raw in hlo_protos(space):
        hlo = hlo_pb2.HloProto()
        hlo.ParseFromString(raw)
        if hlo.HasField("buffer_assignment"):
            modules.append(module_memory(hlo))
    modules.sort(key=lambda m: m["name"])
    json.dump({"source": os.path.basename(sys.argv[1]), "modules": modules}, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
