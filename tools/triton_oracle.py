"""Differential oracle: ask a real Triton (>= 3.9, CPU is enough) what it computes, case by case.

Run it with a Python that has `pip install triton==3.9.0` (it is NOT a dependency of layoutcheck):

    python tools/triton_oracle.py generate --seed 1 --count 3000 > lowering.jsonl
    python tools/triton_oracle.py bank --seed 1 --count 500 > bank.jsonl
    python tools/triton_oracle.py convert --seed 1 --count 500 > convert.jsonl

Each case is a random Gluon layout spec (`{"class", "params"}`, the format of
tests/conformance/*.jsonl) at a random shape; the output records Triton's
canonical attribute text and LinearLayout, Triton's bank-conflict count or its
convert-layout triviality, or the error Triton raised. Every case runs in a
forked child, so an abort inside Triton is recorded as a `crash` and never
stops the run. `tests/conformance/test_differential.py` replays such files
against layoutcheck.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import traceback

SEP = "\x1e"


# ------------------------------------------------------------------ generators

def pow2(rng, lo, hi):
    return 1 << rng.randint(lo, hi)


def split_product(rng, total, rank):
    """`rank` powers of two whose product is `total`."""
    parts = [1] * rank
    t = total
    while t > 1:
        parts[rng.randrange(rank)] *= 2
        t //= 2
    return parts


def perm(rng, rank):
    p = list(range(rank))
    rng.shuffle(p)
    return p


def shape_for(rng, rank, lo=0, hi=8, total_log=14):
    while True:
        s = [pow2(rng, lo, hi) for _ in range(rank)]
        if sum(x.bit_length() - 1 for x in s) <= total_log:
            return s


def cga(rng, rank, p=0.15):
    if rng.random() > p:
        return []
    n = rng.randint(1, 2)
    bases = []
    for _ in range(n):
        d = rng.randrange(rank)
        k = sum(1 for b in bases if b[d])
        v = [0] * rank
        v[d] = 1 << k
        bases.append(v)
    if rng.random() < 0.2:
        bases.append([0] * rank)
    return bases


def blocked(rng, rank=None, warp=32):
    rank = rank or rng.randint(1, 3)
    return {"class": "BlockedLayout", "params": {
        "size_per_thread": [pow2(rng, 0, 3) for _ in range(rank)],
        "threads_per_warp": split_product(rng, warp, rank),
        "warps_per_cta": split_product(rng, pow2(rng, 0, 3), rank),
        "order": perm(rng, rank), "cga_layout": cga(rng, rank)}}


def nvidia_mma(rng, rank=2):
    if rng.random() < 0.5:
        instr = [16, 8] if rank == 2 else [1, 16, 8]
        version = [2, 0]
        warps = split_product(rng, pow2(rng, 0, 3), rank)
    else:
        rank = 2
        instr = [16, pow2(rng, 3, 8), rng.choice([8, 16, 32])]
        version = [3, 0]
        warps = [pow2(rng, 2, 3), 1] if rng.random() < 0.7 else [4, 2]
    return {"class": "NVMMADistributedLayout", "params": {
        "version": version, "warps_per_cta": warps, "instr_shape": instr, "cga_layout": cga(rng, rank, 0.1)}}


def amd_mfma(rng, rank=2):
    mn = rng.choice([[32, 32], [16, 16], [64, 4], [4, 64]])
    k = {32: 8, 16: 16, 64: 4, 4: 4}[mn[0]]
    transposed = True if mn == [64, 4] else rng.random() < 0.5
    warps = split_product(rng, pow2(rng, 0, 3), rank)
    p = {"version": rng.randint(1, 4), "instr_shape": mn + [k], "transposed": transposed, "warps_per_cta": warps}
    if rng.random() < 0.3:
        p["tiles_per_warp"] = [pow2(rng, 0, 1) for _ in range(rank)]
    if rng.random() < 0.2 and mn[0] in (16, 32):
        p["element_bitwidth"] = 64
    return {"class": "AMDMFMALayout", "params": p}


def amd_wmma(rng, rank=2):
    version = rng.randint(1, 3)
    instr = {1: [16, 16, 16], 2: rng.choice([[16, 16, 16], [16, 16, 32]]),
             3: [16, 16, rng.choice([4, 32, 64, 128])]}[version]
    nw = rng.randint(0, 3)
    warp_bases = []
    for _ in range(nw):
        d = rng.randrange(rank)
        k = sum(1 for b in warp_bases if b[d])
        v = [0] * rank
        v[d] = 1 << k
        warp_bases.append(v)
    p = {"version": version, "transposed": rng.random() < 0.5, "warp_bases": warp_bases, "rank": rank}
    if version != 1 or instr != [16, 16, 16]:
        p["instr_shape"] = instr
    if rng.random() < 0.3:
        p["reg_bases"] = [[0] * (rank - 1) + [1]]
    return {"class": "AMDWMMALayout", "params": p}


def distributed(rng, rank=2):
    kind = rng.choice(["blocked", "mma", "mfma", "wmma"])
    if kind == "blocked":
        return blocked(rng, rank)
    if kind == "mma":
        return nvidia_mma(rng, rank)
    if kind == "mfma":
        return amd_mfma(rng, rank)
    return amd_wmma(rng, rank)


def dot_op(rng):
    parent = rng.choice(["mma", "blocked", "mfma", "wmma"])
    op = rng.randint(0, 1)
    if parent == "mma":
        par = nvidia_mma(rng, 2)
        if par["params"]["version"][0] == 3:
            op = 0
        k = pow2(rng, 0, 3)
    elif parent == "blocked":
        par, k = blocked(rng, 2), 0
    elif parent == "mfma":
        par, k = amd_mfma(rng, 2), rng.choice([4, 8, 16])
    else:
        par = amd_wmma(rng, 2)
        k = {1: rng.choice([8, 16]), 2: rng.choice([4, 8, 16]), 3: rng.choice([2, 4, 8, 16])}[par["params"]["version"]]
    return {"class": "DotOperandLayout", "params": {"operand_index": op, "parent": par, "k_width": k}}


def slice_(rng):
    rank = rng.randint(2, 3)
    par = rng.choice([lambda: blocked(rng, rank), lambda: distributed(rng, 2), lambda: dot_op(rng)])()
    prank = len(_shape_rank(par))
    return {"class": "SliceLayout", "params": {"dim": rng.randrange(prank), "parent": par}}


def _shape_rank(spec):
    p = spec["params"]
    for key in ("order", "warps_per_cta"):
        if key in p:
            return p[key]
    if spec["class"] == "AMDWMMALayout":
        return [0] * p["rank"]
    if spec["class"] == "DotOperandLayout":
        return _shape_rank(p["parent"])
    if spec["class"] == "SliceLayout":
        return _shape_rank(p["parent"])[1:]
    return [0, 0]


def linear(rng):
    rank = rng.randint(1, 2)
    shape = shape_for(rng, rank, 0, 6, 10)
    bits = [(d, 1 << i) for d in range(rank) for i in range(shape[d].bit_length() - 1)]
    rng.shuffle(bits)
    dims = {"reg_bases": [], "lane_bases": [], "warp_bases": [], "block_bases": []}
    names = list(dims)
    lanes = 5
    for d, v in bits:
        key = "lane_bases" if len(dims["lane_bases"]) < lanes and rng.random() < 0.5 else rng.choice(
            ["reg_bases", "warp_bases", "reg_bases"])
        b = [0] * rank
        b[d] = v
        dims[key].append(b)
    while len(dims["lane_bases"]) < lanes:
        dims["lane_bases"].append([0] * rank)
    if rng.random() < 0.2:
        dims["reg_bases"].insert(rng.randint(0, len(dims["reg_bases"])), [0] * rank)
    dims["shape"] = shape
    del names
    return {"class": "DistributedLinearLayout", "params": dims}


def swizzled(rng):
    rank = rng.randint(1, 3)
    return {"class": "SwizzledSharedLayout", "params": {
        "vec": pow2(rng, 0, 4), "per_phase": pow2(rng, 0, 3), "max_phase": pow2(rng, 0, 4),
        "order": perm(rng, rank), "cga_layout": cga(rng, rank, 0.1)}}


def nvmma_shared(rng):
    rank = rng.choice([2, 2, 2, 3])
    bw = rng.choice([8, 16, 32])
    p = {"swizzle_byte_width": rng.choice([0, 32, 64, 128]), "element_bitwidth": bw, "rank": rank,
         "transposed": rng.random() < 0.4, "cga_layout": cga(rng, rank, 0.1)}
    if p["swizzle_byte_width"] == 128 and bw == 8 and rng.random() < 0.3:
        p["fp4_padded"] = True
    return {"class": "NVMMASharedLayout", "params": p}


def shared_linear(rng):
    rank = rng.randint(1, 2)
    shape = shape_for(rng, rank, 1, 6, 10)
    bits = [(d, 1 << i) for d in range(rank) for i in range(shape[d].bit_length() - 1)]
    rng.shuffle(bits)
    bases = []
    for d, v in bits:
        b = [0] * rank
        b[d] = v
        if bases and rng.random() < 0.3:
            other = rng.choice(bases)
            b = [x ^ y for x, y in zip(b, other)]
        bases.append(b)
    return {"class": "SharedLinearLayout", "params": {"offset_bases": bases, "block_bases": [],
                                                      "alignment": rng.choice([16, 128])}}


FAMILIES = {
    "blocked": blocked, "slice": slice_, "dot_op": dot_op, "nvidia_mma": nvidia_mma, "amd_mfma": amd_mfma,
    "amd_wmma": amd_wmma, "linear": linear, "swizzled_shared": swizzled, "nvmma_shared": nvmma_shared,
    "shared_linear": shared_linear,
}


def random_case(rng):
    family = rng.choice(list(FAMILIES))
    spec = FAMILIES[family](rng)
    rank = len(_shape_rank(spec)) if family not in ("linear", "shared_linear", "swizzled_shared", "nvmma_shared") \
        else None
    if family in ("linear", "shared_linear"):
        shape = list(spec["params"].get("shape") or _bases_shape(spec["params"]["offset_bases"]))
        if family == "linear" and rng.random() < 0.4:
            shape = [s * rng.choice([1, 2, 4]) // rng.choice([1, 2]) or 1 for s in shape]
    elif family == "swizzled_shared":
        shape = shape_for(rng, len(spec["params"]["order"]), 0, 8, 14)
    elif family == "nvmma_shared":
        shape = shape_for(rng, spec["params"]["rank"], 0, 8, 16)
    else:
        shape = shape_for(rng, rank, 0, 8, 14)
    bits = rng.choice([8, 16, 32]) if family in ("swizzled_shared", "shared_linear") else 16
    if family == "nvmma_shared":
        bits = spec["params"]["element_bitwidth"]
    return {"family": family, "layout": spec, "shape": shape, "element_bitwidth": bits}


def _bases_shape(bases):
    rank = len(bases[0]) if bases else 1
    out = [1] * rank
    for b in bases:
        for d, v in enumerate(b):
            out[d] = max(out[d], 1 << v.bit_length())
    return out


# --------------------------------------------------------------------- triton

class Oracle:
    def __init__(self, target="cuda:90"):
        import triton.experimental.gluon.language as ttgl
        import triton.experimental.gluon.language.amd as amd
        from triton._C.libtriton import gluon_ir, ir
        self.ttgl, self.amd = ttgl, amd
        self.ctx = ir.context()
        ir.load_dialects(self.ctx)
        b = gluon_ir.GluonOpBuilder(self.ctx)
        mod = b.create_module()
        mod.set_attr("ttg.target", b.get_string_attr(target))
        fn = b.get_or_insert_function(mod, "oracle", b.get_function_ty([], []), "public", False)
        mod.push_back(fn)
        b.set_insertion_point_to_end(fn.add_entry_block())
        self.b = b

    def build(self, spec):
        p = dict(spec["params"])
        for key in ("parent", "partition_layout"):
            if key in p:
                p[key] = self.build(p[key])
        cls = getattr(self.ttgl, spec["class"], None) or getattr(self.amd, spec["class"])
        return cls(**p)

    def elem_ty(self, bits):
        b = self.b
        return {8: b.get_int8_ty, 16: b.get_half_ty, 32: b.get_float_ty, 64: b.get_double_ty}[bits]()

    def type_of(self, spec, attr, shape, bits):
        if spec["class"] in SHARED_CLASSES:
            return self.b.get_shared_mem_desc_ty(self.elem_ty(bits), shape, attr, shape)
        return self.b.get_distributed_ty(self.elem_ty(bits), shape, attr)

    def lower(self, case):
        layout = self.build(case["layout"])
        attr = layout._to_ir(self.b)
        ty = self.type_of(case["layout"], attr, case["shape"], case["element_bitwidth"])
        text = str(ty)
        ll = self.b.to_linear_layout(attr, case["shape"])
        return {"mlir_type": text, "mlir_attr": attr_text(text), "linear_layout": ll_json(ll)}

    def side(self, spec, shape, bits):
        layout = self.build(spec)
        attr = layout._to_ir(self.b)
        text = str(self.type_of(spec, attr, shape, bits))
        return attr, attr_text(text), ll_json(self.b.to_linear_layout(attr, shape))

    def bank(self, case):
        reg, reg_text, reg_ll = self.side(case["reg_layout"], case["shape"], case["element_bitwidth"])
        smem, smem_text, smem_ll = self.side(case["shared_layout"], case["shape"], case["element_bitwidth"])
        n = self.b.get_shared_bank_conflicts(reg, smem, case["shape"], case["element_bitwidth"])
        return {"reg_mlir_attr": reg_text, "reg_linear_layout": reg_ll, "shared_mlir_attr": smem_text,
                "shared_linear_layout": smem_ll, "bank_conflicts": n}

    def convert(self, case):
        shape, bits = case["shape"], case["element_bitwidth"]
        src, src_text, src_ll = self.side(case["src"], shape, bits)
        dst, dst_text, dst_ll = self.side(case["dst"], shape, bits)
        value = self.b.create_poison(self.b.get_distributed_ty(self.elem_ty(bits), shape, src))
        trivial = self.b.is_convert_layout_trivial(self.b.get_distributed_ty(self.elem_ty(bits), shape, dst), value)
        return {"src_mlir_attr": src_text, "src_linear_layout": src_ll, "dst_mlir_attr": dst_text,
                "dst_linear_layout": dst_ll, "same_encoding": src_text == dst_text, "trivial": trivial}


SHARED_CLASSES = {"SwizzledSharedLayout", "NVMMASharedLayout", "PaddedSharedLayout", "SharedLinearLayout",
                  "PartitionedSharedLayout"}


def attr_text(type_text: str) -> str:
    """The encoding attribute inside a printed tensor/memdesc type."""
    start = type_text.index("#")
    depth = 0
    for i in range(start, len(type_text)):
        ch = type_text[i]
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                return type_text[start:i + 1]
    return type_text[start:]


def distributed_any(rng, rank):
    kind = rng.random()
    if kind < 0.35:
        return blocked(rng, rank)
    if kind < 0.55:
        return nvidia_mma(rng, rank)
    if kind < 0.8:
        par = nvidia_mma(rng, 2)
        op = 0 if par["params"]["version"][0] == 3 else rng.randint(0, 1)
        return {"class": "DotOperandLayout", "params": {"operand_index": op, "parent": par,
                                                        "k_width": pow2(rng, 0, 3)}}
    return amd_mfma(rng, rank)


def random_bank_case(rng):
    rank = 2
    reg = distributed_any(rng, rank)
    shared = rng.choice([lambda: swizzled(rng), lambda: nvmma_shared(rng)])()
    shared["params"]["cga_layout"] = []
    if "order" in shared["params"]:
        shared["params"]["order"] = perm(rng, rank)
    else:
        shared["params"]["rank"] = rank
        shared["params"].pop("fp4_padded", None)
    shape = shape_for(rng, rank, 2, 8, 14)
    bits = shared["params"].get("element_bitwidth") or rng.choice([8, 16, 32])
    return {"reg_layout": reg, "shared_layout": shared, "shape": shape, "element_bitwidth": bits}


def random_convert_case(rng):
    rank = 2
    src, dst = distributed_any(rng, rank), distributed_any(rng, rank)
    if rng.random() < 0.3:
        dst = src
    return {"src": src, "dst": dst, "shape": shape_for(rng, rank, 2, 8, 13), "element_bitwidth": 16}


def ll_json(ll):
    if hasattr(ll, "offset_bases"):
        return {"in_dims": ["offset", "block"], "in": {"offset": ll.offset_bases, "block": ll.block_bases},
                "shape": list(ll.shape)}
    return {"in_dims": ["register", "lane", "warp", "block"],
            "in": {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases,
                   "block": ll.block_bases}, "shape": list(ll.shape)}


def run_isolated(fn, arg):
    """Run fn(arg) in a forked child; return its JSON result, or the crash."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = {"ok": fn(arg)}
        except BaseException as e:  # the exception Triton raised is the recorded answer
            res = {"error": {"kind": "exception", "type": type(e).__name__, "message": str(e)[:400]}}
        try:
            data = json.dumps(res).encode()
        except Exception:
            data = json.dumps({"error": {"kind": "exception", "type": "Unserializable",
                                         "message": traceback.format_exc()[-300:]}}).encode()
        os.write(w, data)
        os.close(w)
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        c = os.read(r, 65536)
        if not c:
            break
        chunks.append(c)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if chunks:
        return json.loads(b"".join(chunks))
    return {"error": {"kind": "crash", "type": f"signal {os.WTERMSIG(status) if os.WIFSIGNALED(status) else status}",
                      "message": ""}}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["generate", "bank", "convert"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=1000)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    oracle = Oracle()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # Triton's abort messages and nanobind's leak report
    make, run = {"generate": (random_case, oracle.lower), "bank": (random_bank_case, oracle.bank),
                 "convert": (random_convert_case, oracle.convert)}[args.mode]
    for i in range(args.count):
        case = make(rng)
        res = run_isolated(run, case)
        case["id"] = f"gen-{args.mode}-{case.get('family', 'pair')}-{args.seed}-{i}"
        case["error"] = res.get("error")
        if "ok" in res:
            case.update(res["ok"])
        sys.stdout.write(json.dumps(case) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
