#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Seed corpora for the fuzz targets: small generated files plus cut-down real samples.

usage: make_seeds.py OUTDIR SAMPLES_DIR [SYNTH_XPLANE...]
Writes OUTDIR/<target>/<seed>. Large samples are truncated (a truncated file is a useful seed
too: the loaders must report where they stopped)."""
import base64, gzip, os, struct, sys

out, samples, synth = sys.argv[1], sys.argv[2], sys.argv[3:]


def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def varint(n):
    b = bytearray()
    while True:
        c = n & 0x7F
        n >>= 7
        if n:
            b.append(c | 0x80)
        else:
            b.append(c)
            return bytes(b)


def field(num, wt, payload):
    if wt == 0:
        return varint(num << 3) + varint(payload)
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def parse(buf):
    """Protobuf wire fields (num, wiretype, value); raises on malformed input."""
    i, res = 0, []
    while i < len(buf):
        key, s = 0, 0
        while True:
            c = buf[i]; i += 1; key |= (c & 0x7F) << s; s += 7
            if not c & 0x80:
                break
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, s = 0, 0
            while True:
                c = buf[i]; i += 1; v |= (c & 0x7F) << s; s += 7
                if not c & 0x80:
                    break
        elif wt == 1:
            v = buf[i:i + 8]; i += 8
        elif wt == 5:
            v = buf[i:i + 4]; i += 4
        elif wt == 2:
            n, s = 0, 0
            while True:
                c = buf[i]; i += 1; n |= (c & 0x7F) << s; s += 7
                if not c & 0x80:
                    break
            v = buf[i:i + n]; i += n
        else:
            raise ValueError("wiretype")
        res.append((num, wt, v))
    return res


def hlo_protos(xspace):
    """bytes_value stats of XEventMetadata (XSpace.planes=1, XPlane.event_metadata=4 map,
    XEventMetadata.stats=5, XStat.bytes_value=6): where the XLA modules' HloProto lives."""
    found = []
    try:
        for num, _, plane in parse(xspace):
            if num != 1:
                continue
            for pn, _, entry in parse(plane):
                if pn != 4:
                    continue
                for en, _, meta in parse(entry):
                    if en != 2:
                        continue
                    for mn, _, stat in parse(meta):
                        if mn != 5:
                            continue
                        for sn, swt, v in parse(stat):
                            if sn == 6 and swt == 2 and len(v) > 16:
                                found.append(bytes(v))
    except (IndexError, ValueError):
        pass
    return found


# --- XSpace + HLO
xs = [read(p) for p in synth] + [read(os.path.join(samples, "tpu_v6e_inference.xplane.pb")),
                                  read(os.path.join(samples, "gpu_multiworker.xplane.pb"))]
xs = [x for x in xs if x]
for i, x in enumerate(xs):
    put("xspace", "x%d" % i, x[:65536])
    put("xspace", "x%d_cut" % i, x[:len(x[:65536]) // 3])
    for j, h in enumerate(hlo_protos(x)[:6]):
        put("hloproto", "h%d_%d" % (i, j), h[:65536])
    for j, h in enumerate(hlo_protos(x)):
        try:
            fields = parse(h)
        except (IndexError, ValueError):
            continue
        for num, wt, v in fields:
            if num == 3 and wt == 2:  # HloProto.buffer_assignment
                put("bufferassignment", "b%d_%d" % (i, j), bytes(v)[:65536])
put("xspace", "empty_plane", field(1, 2, field(2, 2, b"/device:TPU:0")))

# --- layout text
for i, s in enumerate([
        "f32[5,1024]{1,0:T(8,128)S(5)}", "bf16[]{:T(256)}", "s32[]", "(f32[2]{0}, (s32[], bf16[4,4]{1,0}))",
        "f32[<=16,8]", "f32[?,8]{1,0}", "bf16[16,1]{0,1:T(8,128)(2,1)}", "u8[3,5,7]{2,1,0:T(2,128)(4,1)*L(1024)E(4)}",
        "pred[1]{0:T(1024)(128)(4,1)}", "f32[2,3]{1,0:T(8,128)D(s,c)#(1)SC(0:1)P(3)M(2)}",
        "%fusion.3 = bf16[16,1]{0,1:T(8,128)(2,1)} fusion(%p0), kind=kOutput", "{3,2,1,0:T(8,128)S(5)}",
        "3,2,1,0:T(8,128)"]):
    put("layout", "s%d" % i, s.encode())

# --- Chrome JSON (plain and gzip)
small = [
    b'{"traceEvents":[{"ph":"X","name":"fusion.1","pid":1,"tid":2,"ts":1.5,"dur":3,"args":{"long_name":"x"}},'
    b'{"ph":"M","name":"process_name","pid":1,"args":{"name":"/device:TPU:0"}},'
    b'{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"XLA Ops"}},'
    b'{"ph":"B","name":"a","pid":1,"tid":3,"ts":0},{"ph":"E","pid":1,"tid":3,"ts":9},'
    b'{"ph":"C","name":"mem","pid":1,"ts":4,"args":{"v":1e3}},{"ph":"i","name":"mark","pid":1,"ts":2}],'
    b'"displayTimeUnit":"ns"}',
    b'[{"ph":"X","name":"a","pid":0,"tid":0,"ts":0,"dur":1}]',
    b'{"traceEvents":[{"ph":"X","name":"\\u00e9\\ud83d\\ude00","pid":"1","tid":-1,"ts":-5,"dur":-1}]}',
]
vllm = read(os.path.join(samples, "tpu_vllm_serving.trace.json.gz"))
if vllm:
    small.append(gzip.decompress(vllm)[:60000])
for i, s in enumerate(small):
    put("chromejson", "j%d" % i, s)
    put("chromejson_gz", "c%d" % i, b"\x01" + s)
    put("chromejson_gz", "g%d" % i, b"\x00" + gzip.compress(s, 1))
if vllm:
    put("chromejson_gz", "real_cut", b"\x00" + vllm[:30000])

# --- op_profile JSON
op = read(os.path.join(samples, "demo_synthetic.op_profile.json"))
if op:
    put("opprofile", "demo", op)
v5 = read(os.path.join(samples, "tpu_v5_training.op_profile.json.gz"))
if v5:
    put("opprofile", "v5_cut", gzip.decompress(v5)[:60000])

# --- legacy TF1 Trace (Trace.devices=1 map, trace_events=4; Device name=1 id=2 resources=3;
# Resource name=1 id=2; TraceEvent device_id=1 resource_id=2 name=3 timestamp_ps=9 duration_ps=10 args=11)
dev = field(1, 2, b"TPU Core 0") + field(2, 0, 1) + field(3, 2, field(1, 0, 2) + field(2, 2, field(1, 2, b"XLA Ops") + field(2, 0, 2)))
trace = field(1, 2, field(1, 0, 1) + field(2, 2, dev))
for name, ts, dur in [(b"fusion.1", 1000, 400000), (b"copy.2", 900000, 50000), (b"step 0", 0, 10**6)]:
    ev = field(1, 0, 1) + field(2, 0, 2) + field(3, 2, name) + field(9, 0, ts) + field(10, 0, dur)
    ev += field(11, 2, field(1, 2, b"hlo_category") + field(2, 2, b"loop fusion"))
    trace += field(4, 2, ev)
put("legacytrace", "t0", trace)

# --- share file and text
share = [read(p[:-len(".xplane.pb")] + ".tpuscope") for p in synth]
share = [s for s in share if s]
for i, s in enumerate(share):
    put("sharefile", "f%d" % i, b"\x00" + s)
    nl = s.find(b"\n")
    try:
        put("sharefile", "j%d" % i, b"\x01" + gzip.decompress(s[nl + 1:]))
    except Exception:
        pass
    b64 = base64.b64encode(s).decode()
    text = "```tpuscope\n" + "\n".join(b64[k:k + 76] for k in range(0, len(b64), 76)) + "\n```\n"
    put("sharetext", "t%d" % i, text.encode())
    put("sharetext", "q%d" % i, ("Here:\n" + "".join("> " + l + "\n" for l in text.splitlines())).encode())

# The hostile corpus (tests/data/hostile): each case a seed, whole and as its JSON, so the
# grammar-aware mutator (sharemutator.h) starts from every lie a share file is known to tell.
hostile = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "hostile")
for name in sorted(os.listdir(hostile)) if os.path.isdir(hostile) else []:
    data = read(os.path.join(hostile, name))
    if not data or not name.endswith(".tpuscope") or len(data) > 100000:
        continue
    put("sharefile", "h_" + name, b"\x00" + data)
    try:
        json_text = gzip.decompress(data[data.find(b"\n") + 1:])
        if len(json_text) < 1000000:
            put("sharefile", "hj_" + name, b"\x01" + json_text)
    except Exception:
        pass

# --- log directories: parts separated by "\n--\n", first byte of a part = path index (fuzz_logdir.cpp)
sep = b"\n--\n"
parts = []
if xs:
    parts.append(bytes([0]) + xs[0][:20000])
    parts.append(bytes([1]) + xs[0][:5000])
parts.append(bytes([2]) + gzip.compress(small[0]))
if op:
    parts.append(bytes([3]) + op)
put("logdir", "l0", sep.join(parts))
put("logdir", "l1", sep.join([bytes([4]) + trace, bytes([6]) + (op or b"{}")]))
put("logdir", "l2", sep.join([bytes([9]) + (xs[0][:3000] if xs else b""), bytes([10]) + gzip.compress(small[1]), bytes([5]) + b"\x83\xaf\x70\xd1"]))

# --- tar-like log directories (fuzz_logdirtar.cpp): [kind][path length][path][content length LE16][content]
def tar_entry(kind, path, content=b""):
    p = path.encode()
    content = content[:65535]
    return bytes([kind, len(p)]) + p + bytes([len(content) & 0xff, len(content) >> 8]) + content
run = "plugins/profile/2026_01_11_21_26_41/"
entries = [tar_entry(1, run)]
if xs:
    entries.append(tar_entry(0, run + "h-a.xplane.pb", xs[0][:20000]))
entries.append(tar_entry(0, run + "h-b.trace.json.gz", gzip.compress(small[0])))
entries.append(tar_entry(4, run + "h-c.xplane.pb"))  # a FIFO
entries.append(tar_entry(2, run + "h-d.xplane.pb", b"h-a.xplane.pb"))  # a symlink
entries.append(tar_entry(3, run + "h-e.xplane.pb", b"\x01"))  # a hard link
entries.append(tar_entry(2, "train/plugins/profile", b"../plugins/profile"))  # a directory symlink
put("logdirtar", "t0", b"".join(entries))
put("logdirtar", "t1", tar_entry(0, run + "trace", trace) + tar_entry(0, run + "op_profile.json", op or b"{}"))

# --- output paths (fuzz_outputpath.cpp): 4 choice bytes, then the payload
for i, choice in enumerate([b"\x00\x01\x0f\x02", b"\x01\x02\x08\x0b", b"\x02\x03\x01\x0c", b"\x03\x00\x04\x0d", b"\x00\x00\x00\x04"]):
    put("outputpath", "o%d" % i, choice + b"payload %d" % i)
