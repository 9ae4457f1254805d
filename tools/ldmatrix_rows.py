"""Fixture: which rows each lane of Triton's ldmatrix / stmatrix (.trans) addresses, read off the PTX.

    /work/tvenv/bin/python tools/ldmatrix_rows.py > tests/conformance/ldst_matrix_rows.jsonl
    python tools/ldmatrix_rows.py --probes > tests/versions/ldst_matrix_rows/<X.Y>.jsonl   # any Triton 3.5..3.9

Runs under Triton 3.5 to 3.9 (CPU is enough: Gluon kernels are compiled to PTX, nothing runs); ``--probes``
adds `probe_variants` (the ../shared/gpu probe kernels with transposed matrix instructions). Differences
between versions, handled here: 3.5's Gluon builder has no ``to_linear_layout`` and 3.6's aborts on shared
layouts, so ``triton_ll`` is None where the running Triton cannot give it; Triton 3.8 spells the shared
accesses ``st.shared::cta`` / ``ld.shared::cta`` in its PTX (recorded as emitted). Each variant
is a small Gluon kernel: load a tensor in layout ``R`` (global), ``allocate_shared_memory`` with
layout ``S`` (the store side: R -> S), ``.load(R2)`` (the load side: S -> R2), store it (global).
`ptx_lanes.shared_accesses` evaluates every thread's shared-memory address from the PTX; the
accesses are recorded per warp and instruction, relative to the lowest address of the buffer.
The kernel's only shared-memory writes are the allocation's and its only reads the load's (LLVM
may give them the debug line of a neighbouring op, so they are told apart by kind, not by
``.loc``). Each record also keeps Triton's LinearLayouts of R, S and R2
(`triton_oracle.ll_json`). `tests/properties/smem/test_plan.py` replays them.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptx_lanes import shared_accesses  # noqa: E402


def mma2(warps, rank=2):
    return {"class": "NVMMADistributedLayout", "params": {
        "version": [2, 0], "warps_per_cta": warps, "instr_shape": [16, 8] if rank == 2 else [1, 16, 8]}}


def mma3(warps, n):
    return {"class": "NVMMADistributedLayout", "params": {"version": [3, 0], "warps_per_cta": warps,
                                                          "instr_shape": [16, n, 16]}}


def dot(op, parent, k):
    return {"class": "DotOperandLayout", "params": {"operand_index": op, "parent": parent, "k_width": k}}


def blocked(spt, tpw, wpc, order):
    return {"class": "BlockedLayout", "params": {"size_per_thread": spt, "threads_per_warp": tpw,
                                                 "warps_per_cta": wpc, "order": order}}


def swz(vec, per, mx, order):
    return {"class": "SwizzledSharedLayout", "params": {"vec": vec, "per_phase": per, "max_phase": mx,
                                                        "order": order}}


def nvmma(swizzle, bits, transposed=False, rank=2):
    return {"class": "NVMMASharedLayout", "params": {"swizzle_byte_width": swizzle, "element_bitwidth": bits,
                                                     "rank": rank, "transposed": transposed}}


DTYPES = {"fp16": (16, "*fp16"), "bf16": (16, "*bf16"), "fp8": (8, "*fp8e4nv"), "int8": (8, "*i8"),
          "fp32": (32, "*fp32"), "fp64": (64, "*fp64")}


def variants():
    """(id, target, num_warps, dtype, shape, R, S, R2)."""
    out = []
    b2 = blocked([1, 8], [4, 8], [4, 1], [1, 0])
    b2c = blocked([8, 1], [8, 4], [1, 4], [0, 1])
    b3 = blocked([1, 1, 8], [1, 8, 4], [1, 4, 1], [2, 1, 0])
    for tgt in ("cuda:80", "cuda:90"):
        t = tgt.split(":")[1]
        # 2-D fp16 / bf16 dot operands of mma v2, K- or MN-contiguous shared, swizzled or not
        for dt in ("fp16", "bf16"):
            for sname, S in (("swz8.1.8", swz(8, 1, 8, [1, 0])), ("flat", swz(1, 1, 1, [1, 0])),
                             ("swz8.2.4", swz(8, 2, 4, [1, 0]))):
                out.append((f"{dt}_b_nn_32x32_{sname}_{t}", tgt, 4, dt, [32, 32], b2, S,
                            dot(1, mma2([2, 2]), 2)))
                out.append((f"{dt}_b_nn_64x64_{sname}_{t}", tgt, 4, dt, [64, 64], b2, S,
                            dot(1, mma2([2, 2]), 2)))
            out.append((f"{dt}_a_tn_64x32_flat_{t}", tgt, 4, dt, [64, 32], b2c, swz(1, 1, 1, [0, 1]),
                        dot(0, mma2([4, 1]), 2)))
            out.append((f"{dt}_a_nn_64x32_swz_{t}", tgt, 4, dt, [64, 32], b2, swz(8, 1, 4, [1, 0]),
                        dot(0, mma2([4, 1]), 2)))
        out.append((f"fp16_b_nn_64x64_flat_w8_{t}", tgt, 8, "fp16", [64, 64], blocked([1, 8], [4, 8], [8, 1], [1, 0]),
                    swz(1, 1, 1, [1, 0]), dot(1, mma2([4, 2]), 2)))
        out.append((f"fp16_b_nn_64x64_flat_w1_{t}", tgt, 1, "fp16", [64, 64], blocked([1, 8], [4, 8], [1, 1], [1, 0]),
                    swz(1, 1, 1, [1, 0]), dot(1, mma2([1, 1]), 2)))
        # 8-bit operands: K-contiguous (ldmatrix), MN-contiguous (no b8 .trans before sm100)
        for dt in ("int8", "fp8") if tgt != "cuda:80" else ("int8",):
            out.append((f"{dt}_b_tn_64x64_swz_{t}", tgt, 4, dt, [64, 64], b2c, swz(16, 1, 8, [0, 1]),
                        dot(1, mma2([2, 2]), 4)))
            out.append((f"{dt}_a_nn_64x64_flat_{t}", tgt, 4, dt, [64, 64], b2, swz(1, 1, 1, [1, 0]),
                        dot(0, mma2([4, 1]), 4)))
        # 3-D (batched) dot operands, every shared order
        for order in ([2, 0, 1], [2, 1, 0], [1, 2, 0], [1, 0, 2]):
            o = "".join(map(str, order))
            for dt in ("fp16", "bf16"):
                out.append((f"{dt}_3d_b_2x32x32_o{o}_{t}", tgt, 4, dt, [2, 32, 32], b3, swz(8, 2, 4, order),
                            dot(1, mma2([2, 1, 2], 3), 2)))
            out.append((f"fp16_3d_a_2x32x32_o{o}_{t}", tgt, 4, "fp16", [2, 32, 32], b3, swz(8, 2, 4, order),
                        dot(0, mma2([2, 2, 1], 3), 2)))
        out.append((f"fp16_3d_b_4x32x64_o201_w122_{t}", tgt, 4, "fp16", [4, 32, 64], b3, swz(8, 1, 8, [2, 0, 1]),
                    dot(1, mma2([1, 2, 2], 3), 2)))
        out.append((f"fp16_3d_b_2x64x32_flat_{t}", tgt, 4, "fp16", [2, 64, 32], b3, swz(1, 1, 1, [2, 1, 0]),
                    dot(1, mma2([2, 1, 2], 3), 2)))
        out.append((f"int8_3d_b_2x32x64_o102_{t}", tgt, 4, "int8", [2, 64, 32], b3, swz(16, 1, 4, [1, 0, 2]),
                    dot(1, mma2([2, 1, 2], 3), 4)))
    # Hopper: mma v3 accumulators stored with stmatrix(.trans), wgmma A operands from registers
    for n in (64, 128):
        acc = mma3([4, 1], n)
        out.append((f"fp16_acc_64x{n}_nvmma128_90", "cuda:90", 4, "fp16", [64, n], acc, nvmma(128, 16),
                    blocked([1, 8], [4, 8], [4, 1], [1, 0])))
        out.append((f"fp16_acc_64x{n}_nvmma128t_90", "cuda:90", 4, "fp16", [64, n], acc, nvmma(128, 16, True),
                    blocked([8, 1], [8, 4], [1, 4], [0, 1])))
        out.append((f"bf16_acc_64x{n}_flat_t_90", "cuda:90", 4, "bf16", [64, n], acc, swz(1, 1, 1, [0, 1]),
                    blocked([8, 1], [8, 4], [1, 4], [0, 1])))
    for dt in ("fp16", "fp8"):
        k = 2 if dt == "fp16" else 4
        out.append((f"{dt}_wgmma_a_64x64_nvmma_90", "cuda:90", 4, dt, [64, 64], b2,
                    nvmma(128 if dt == "fp16" else 64, DTYPES[dt][0]), dot(0, mma3([4, 1], 64), k)))
    out.append(("fp16_wgmma_a_64x64_nvmma128t_90", "cuda:90", 4, "fp16", [64, 64], b2c,
                nvmma(128, 16, True), dot(0, mma3([4, 1], 64), 2)))
    out.append(("fp16_wgmma_a_64x64_flat_t_90", "cuda:90", 4, "fp16", [64, 64], b2c,
                swz(1, 1, 1, [0, 1]), dot(0, mma3([4, 1], 64), 2)))
    # Blackwell: 8-bit transposed matrix instructions (b8)
    for dt in ("int8", "fp8"):
        out.append((f"{dt}_b_nn_64x64_flat_100", "cuda:100", 4, dt, [64, 64], b2, swz(1, 1, 1, [1, 0]),
                    dot(1, mma2([2, 2]), 4)))
        out.append((f"{dt}_b_nn_64x64_swz_100", "cuda:100", 4, dt, [64, 64], b2, swz(16, 1, 8, [1, 0]),
                    dot(1, mma2([2, 2]), 4)))
        out.append((f"{dt}_3d_b_2x64x64_o201_100", "cuda:100", 4, dt, [2, 64, 64], b3, swz(16, 2, 4, [2, 0, 1]),
                    dot(1, mma2([2, 1, 2], 3), 4)))
    return out


def probe_variants():
    """The GPU probe kernels of ../shared/gpu (sm90, 4 or 8 warps) whose shared-memory side is a transposed
    matrix instruction, the sides where Triton's row choice changed (3.9): the bank set's fp16 64x64
    row8 -> dot operand 1 (kWidth 2) through an unswizzled tile (held back from the public sample; rebuilt
    from its description with an mma v2 parent; Triton rejects dot operand 1 of an mma v3 parent: "opIdx
    parameter must be 0 for Hopper MMA parent") and through NVMMA 128 B, and the convert
    set's conversions lowered through shared memory with ldmatrix.trans / stmatrix.trans (``S`` None: the
    kernel is ``gl.convert_layout``, the scratch layout is Triton's). The padded set has no matrix
    instructions. Selected with ``--probes``."""
    row8 = blocked([1, 8], [4, 8], [4, 1], [1, 0])
    col8 = blocked([8, 1], [8, 4], [1, 4], [0, 1])
    out = [("gpu_bank_f16_64x64_row8_to_dot1_unswz_90", "cuda:90", 4, "fp16", [64, 64], row8, swz(1, 1, 1, [1, 0]),
            dot(1, mma2([4, 1]), 2)),
           ("gpu_bank_f16_64x64_row8_to_dot1_nvmma128_90", "cuda:90", 4, "fp16", [64, 64], row8, nvmma(128, 16),
            dot(1, mma2([4, 1]), 2)),
           ("gpu_convert_f16_64x64_col8_to_row8_90", "cuda:90", 4, "fp16", [64, 64], col8, None, row8),
           ("gpu_convert_f16_128x128_row8_to_col8_90", "cuda:90", 4, "fp16", [128, 128], row8, None, col8),
           ("gpu_convert_f16_32x256_row8_to_col8_90", "cuda:90", 4, "fp16", [32, 256], row8, None, col8),
           ("gpu_convert_f16_64x64_mma2_to_col8_90", "cuda:90", 4, "fp16", [64, 64],
            {"class": "NVMMADistributedLayout", "params": {"version": [2, 0], "warps_per_cta": [4, 1],
                                                           "instr_shape": [16, 8]}}, None, col8),
           ("gpu_convert_f16_32x32_row1_to_inwarp_t_90", "cuda:90", 4, "fp16", [32, 32],
            blocked([1, 1], [1, 32], [4, 1], [1, 0]), None,
            {"class": "DistributedLinearLayout", "params": {
                "reg_bases": [[0, 1], [0, 2], [0, 4]], "lane_bases": [[0, 8], [0, 16], [4, 0], [8, 0], [16, 0]],
                "warp_bases": [[1, 0], [2, 0]], "block_bases": [], "shape": [32, 32]}}),
           ("gpu_convert_f16_128x256_w8_row8_to_col8_90", "cuda:90", 8, "fp16", [128, 256],
            blocked([1, 8], [4, 8], [8, 1], [1, 0]), None, blocked([8, 1], [8, 4], [1, 8], [0, 1]))]
    return out


def _kernels():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def k2(inp, out, M: gl.constexpr, N: gl.constexpr, R: gl.constexpr, S: gl.constexpr, R2: gl.constexpr):
        i = gl.arange(0, M, layout=gl.SliceLayout(1, R))
        j = gl.arange(0, N, layout=gl.SliceLayout(0, R))
        x = gl.load(inp + gl.expand_dims(i, 1) * N + gl.expand_dims(j, 0))
        smem = gl.allocate_shared_memory(inp.dtype.element_ty, [M, N], S, value=x)
        y = smem.load(R2)
        i2 = gl.arange(0, M, layout=gl.SliceLayout(1, R2))
        j2 = gl.arange(0, N, layout=gl.SliceLayout(0, R2))
        gl.store(out + gl.expand_dims(i2, 1) * N + gl.expand_dims(j2, 0), y)

    @gluon.jit
    def k3(inp, out, B: gl.constexpr, M: gl.constexpr, N: gl.constexpr, R: gl.constexpr, S: gl.constexpr,
           R2: gl.constexpr):
        b = gl.arange(0, B, layout=gl.SliceLayout(1, gl.SliceLayout(2, R)))
        i = gl.arange(0, M, layout=gl.SliceLayout(0, gl.SliceLayout(2, R)))
        j = gl.arange(0, N, layout=gl.SliceLayout(0, gl.SliceLayout(1, R)))
        offs = (gl.expand_dims(gl.expand_dims(b, 1), 2) * (M * N) + gl.expand_dims(gl.expand_dims(i, 0), 2) * N
                + gl.expand_dims(gl.expand_dims(j, 0), 1))
        x = gl.load(inp + offs)
        smem = gl.allocate_shared_memory(inp.dtype.element_ty, [B, M, N], S, value=x)
        y = smem.load(R2)
        b2 = gl.arange(0, B, layout=gl.SliceLayout(1, gl.SliceLayout(2, R2)))
        i2 = gl.arange(0, M, layout=gl.SliceLayout(0, gl.SliceLayout(2, R2)))
        j2 = gl.arange(0, N, layout=gl.SliceLayout(0, gl.SliceLayout(1, R2)))
        offs2 = (gl.expand_dims(gl.expand_dims(b2, 1), 2) * (M * N) + gl.expand_dims(gl.expand_dims(i2, 0), 2) * N
                 + gl.expand_dims(gl.expand_dims(j2, 0), 1))
        gl.store(out + offs2, y)

    @gluon.jit
    def kc(inp, out, M: gl.constexpr, N: gl.constexpr, R: gl.constexpr, R2: gl.constexpr):
        i = gl.arange(0, M, layout=gl.SliceLayout(1, R))
        j = gl.arange(0, N, layout=gl.SliceLayout(0, R))
        x = gl.load(inp + gl.expand_dims(i, 1) * N + gl.expand_dims(j, 0))
        y = gl.convert_layout(x, R2)
        i2 = gl.arange(0, M, layout=gl.SliceLayout(1, R2))
        j2 = gl.arange(0, N, layout=gl.SliceLayout(0, R2))
        gl.store(out + gl.expand_dims(i2, 1) * N + gl.expand_dims(j2, 0), y)

    return k2, k3, kc


SHARED = ("SwizzledSharedLayout", "NVMMASharedLayout", "PaddedSharedLayout", "SharedLinearLayout")


def _linear_layout(oracle, layout, spec, shape):
    """Triton's LinearLayout of one layout, where this Triton's Python API can give it: 3.7 and later
    convert every layout (``GluonOpBuilder.to_linear_layout``); 3.6's converts distributed layouts only
    (a shared one aborts the process, so it is not asked); 3.5 has no such call. None where not given."""
    import triton
    from triton_oracle import ll_json
    if not hasattr(oracle.b, "to_linear_layout"):
        return None
    if spec["class"] in SHARED and tuple(int(x) for x in triton.__version__.split(".")[:2]) < (3, 7):
        return None
    return ll_json(oracle.b.to_linear_layout(layout._to_ir(oracle.b), shape))


def record(v, kernels, oracle_for):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    vid, target, warps, dt, shape, R, S, R2 = v
    bits, ptr = DTYPES[dt]
    oracle = oracle_for(target)
    sides = tuple((k, spec) for k, spec in (("R", R), ("S", S), ("R2", R2)) if spec is not None)
    layouts = {k: oracle.build(spec) for k, spec in sides}
    fn = kernels[len(shape) - 2] if S is not None else kernels[2]
    dims = dict(zip(("B", "M", "N")[3 - len(shape):], shape))
    sig = {"inp": ptr, "out": ptr, **{k: "constexpr" for k in (*dims, *layouts)}}
    arch = target.split(":")[1]
    src = GluonASTSource(fn, sig, constexprs={**dims, **layouts})
    rec = {"id": vid, "target": target, "num_warps": warps, "dtype": dt, "bits": bits, "shape": shape,
           "R": R, "S": S, "R2": R2}
    try:
        c = triton.compile(src, target=GPUTarget("cuda", int(arch), 32), options={"num_warps": warps})
    except Exception as e:  # noqa: BLE001 - recorded
        rec["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        return rec
    rec["triton"] = triton.__version__
    rec["triton_ll"] = {k: _linear_layout(oracle, layouts[k], spec, shape) for k, spec in sides}
    accs = shared_accesses(c.asm["ptx"], warps * 32)
    addrs = [x for a in accs for x in a["addresses"] if x is not None]
    base = min(addrs) if addrs else 0
    for side in ("store", "load"):
        side_accs = [a for a in accs if a["instruction"].startswith("st" if side == "store" else "ld")]
        per_warp = []
        for w in range(warps):
            per_warp.append([[None if x is None else x - base for x in a["addresses"][32 * w:32 * w + 32]]
                             for a in side_accs])
        rec[side] = {"instructions": dict(Counter(a["instruction"] for a in side_accs)),
                     "predicated": any(a["predicate"] is not None for a in side_accs),
                     "addresses": per_warp}
    return rec


def main() -> int:
    from triton_oracle import Oracle
    kernels = _kernels()
    oracles = {}

    def oracle_for(t):
        if t not in oracles:
            oracles[t] = Oracle(t)
        return oracles[t]

    args = sys.argv[1:]
    probes = "--probes" in args
    only = set(a for a in args if a != "--probes")
    for v in variants() + (probe_variants() if probes else []):
        if only and v[0] not in only:
            continue
        print(json.dumps(record(v, kernels, oracle_for), separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
