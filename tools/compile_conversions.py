"""Compile a corpus of convert_layout kernels with Triton 3.9 on the CPU and record what Triton emits.

    /work/tvenv/bin/python tools/compile_conversions.py --out tests/properties/fixtures/conversions_triton39.jsonl
    /work/tvenv/bin/python tools/compile_conversions.py --set warp_broadcast --append \
        --out tests/properties/fixtures/conversions_triton39.jsonl

Each case is one Gluon kernel: load an M x N (or 1-D, 3-D) tile in layout SRC, ``gl.convert_layout`` it to
DST, store it. SRC and DST are drawn (seeded, deterministic) from blocked layouts, slices of 3-D blocked
parents, MMA v2 / v3 accumulators, dot operands of both, and distributed linear layouts (permuted and
XOR-mixed bases, broadcasts), at 4 and 8 warps, for fp32 / fp16 / int8 (and a few fp64), on cuda:90
(most cases), cuda:80 and cuda:100. The kernel is compiled with ``triton.compile(GluonASTSource(...),
target=GPUTarget(...))`` (the wheel's ptxas runs on the CPU too); the PTX and ``metadata.shared`` are kept.
Linear layouts mix bases only where Triton 3.9 accepts it (registers within one dim, warps freely); a
case that still aborts Triton's C++ (an assertion in orderPerDim for some generic linear layouts) kills
its worker, which is restarted after it (about 8% of the drawn cases; 443 of 480 compile).

``--set amd`` compiles the cases ``a0000``... instead (`amd_cases`, ``--cases`` of them): blocked, linear and
sliced pairs with the lanes of gfx942, gfx950 (64) and gfx1250 (32) in turn, recorded with ``amdgcn`` (the LDS
instructions, ``ds_bpermute_b32`` and permlane swaps, with their counts) in place of ``ptx``, and ``bar`` counting
``s_barrier``: tests/properties/fixtures/conversions_amd_triton39.jsonl (``--cases 900``) and, with Triton 3.8.0 and
3.6.0, conversions_amd_triton38.jsonl and conversions_amd_triton36.jsonl (``--cases 600``). ``--set rdna`` draws
the same way for gfx1100 and gfx1201 (wave32; the gfx11 / gfx12 presets): conversions_rdna_triton39.jsonl
(``--cases 300``).

``--set warp_broadcast`` compiles the cases ``w000``... instead (`warp_broadcast_cases`): sources broadcast
over all or some warps (or over 2 CTAs) next to destinations that spread those warps over lanes,
registers or both, around c0397, the case that showed Triton 3.9 shuffling with a warp-dependent source
lane; ``--append`` merges them into the existing file.

One JSON line per case: ``id``, ``target``, ``num_warps`` (``num_ctas`` when not 1), ``dtype``, ``shape``,
``src`` / ``dst`` (the attribute text of the convert_layout's operand and result types as the TTGIR prints
them), ``shared``
(the kernel's ``metadata.shared``: the conversion's scratch, as nothing else in the kernel allocates),
``ptx`` (PTX shared-memory and shuffle instructions with their counts: ``st.shared.v4.b32``,
``ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16``, ``shfl.sync.idx.b32``, ...) and ``bar`` (the number
of ``bar.sync``). Cases Triton rejects are skipped (the count is printed).

Triton is needed only here, never by layoutcheck. ``--shard i/n`` compiles every n-th case.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import random
import re
import subprocess
import sys
import warnings

DTYPES = {"fp32": 32, "fp16": 16, "int8": 8, "fp64": 64}
PTR = {"fp32": "*fp32", "fp16": "*fp16", "int8": "*i8", "fp64": "*fp64"}
SHAPES_2D = [[16, 16], [16, 64], [32, 32], [32, 64], [64, 32], [64, 64], [32, 128], [128, 32], [128, 64],
             [64, 128], [128, 128], [64, 256], [256, 64]]
SHAPES_3D = [[2, 16, 16], [4, 8, 32], [8, 8, 32], [2, 32, 64], [4, 16, 16]]
SHAPES_1D = [[128], [256], [1024]]
TARGETS = {"cuda90": ("cuda", 90), "cuda80": ("cuda", 80), "cuda100": ("cuda", 100)}


# ----------------------------------------------------------------- layout specs (JSON-able, seeded)


def _split(total_log2: int, parts: int, rng) -> list[int]:
    """Random split of 2^total_log2 into `parts` powers of two (as exponents)."""
    out = [0] * parts
    for _ in range(total_log2):
        out[rng.randrange(parts)] += 1
    return out


def blocked(shape, warps, rng, lanes: int = 32) -> dict:
    rank = len(shape)
    logs = [s.bit_length() - 1 for s in shape]
    order = list(range(rank))[::-1] if rng.random() < 0.7 else rng.sample(range(rank), rank)
    tpw = [0] * rank
    left = lanes.bit_length() - 1
    for d in order:                                 # threads fill the fastest dims first, as usual
        take = min(left, rng.randint(0, logs[d]))
        tpw[d] = take
        left -= take
    tpw[order[-1]] += left
    wl = warps.bit_length() - 1
    wpc = _split(wl, rank, rng)
    spt = [0] * rank
    for d in range(rank):
        room = max(0, logs[d] - tpw[d] - wpc[d])
        spt[d] = rng.randint(0, min(room, 4 if d == order[0] else 2))
    return {"kind": "blocked", "spt": [1 << x for x in spt], "tpw": [1 << x for x in tpw],
            "wpc": [1 << x for x in wpc], "order": order}


def mma(shape, warps, rng, version) -> dict | None:
    M, N = shape
    if version == 2:
        opts = [[warps, 1], [1, warps], [2, warps // 2]] + ([[4, warps // 4]] if warps >= 4 else [])
        return {"kind": "mma", "version": [2, 0], "wpc": rng.choice(opts), "instr": [16, 8]}
    if M < 64 and warps == 4 or M < 16 * warps // (2 if warps == 8 else 1) // 2:
        return None
    wpc = [4, 1] if warps == 4 else rng.choice([[8, 1], [4, 2]])
    if 16 * wpc[0] > M * 2:
        return None
    n = rng.choice([x for x in (8, 16, 32, 64, 128, 256) if x <= N // wpc[1]] or [8])
    return {"kind": "mma", "version": [3, 0], "wpc": wpc, "instr": [16, n, 16]}


def dot(shape, warps, rng, bits) -> dict | None:
    par = mma(shape, warps, rng, rng.choice([2, 2, 3]))
    if par is None:
        return None
    idx = 0 if par["version"][0] == 3 else rng.choice([0, 1])
    kw = max(1, 32 // bits) * rng.choice([1, 1, 2])
    return {"kind": "dot", "idx": idx, "parent": par, "k_width": kw}


def slice3(shape, warps, rng, lanes: int = 32) -> dict:
    d = rng.randrange(3)
    pshape = list(shape)
    pshape.insert(d, rng.choice([2, 4, 8]))
    return {"kind": "slice", "dim": d, "parent": blocked(pshape, warps, rng, lanes)}


def slice1(shape, warps, rng, lanes: int = 32) -> dict:
    d = rng.randrange(2)
    pshape = list(shape)
    pshape.insert(d, rng.choice([4, 16, 32]))
    return {"kind": "slice", "dim": d, "parent": blocked(pshape, warps, rng, lanes)}


def linear(shape, warps, rng, lanes: int = 32) -> dict:
    units = []
    for dim, s in enumerate(shape):
        for i in range(s.bit_length() - 1):
            units.append([(1 << i) if k == dim else 0 for k in range(len(shape))])
    if rng.random() < 0.6:
        rng.shuffle(units)
    n_lane, n_warp = lanes.bit_length() - 1, warps.bit_length() - 1
    n_reg = max(0, len(units) - n_lane - n_warp)
    zeros = n_lane + n_warp + n_reg - len(units)
    bases = list(units)
    z = [0] * len(shape)
    pool = bases + [z] * zeros
    if zeros and rng.random() < 0.5:
        rng.shuffle(pool)
    regs, lanes, wps = pool[:n_reg], pool[n_reg:n_reg + n_lane], pool[n_reg + n_lane:]
    # mix b_i ^= b_j (the span is kept): Triton 3.9 asserts on register or lane bases that move in two
    # dims (and aborts on lane bases mixed within one dim: orderPerDim), so registers within a dim, warps freely
    for _ in range(rng.choice([0, 0, 1, 2])):
        group = rng.choice([regs, wps])
        if len(group) < 2:
            continue
        i, j = rng.sample(range(len(group)), 2)
        new = [a ^ b for a, b in zip(group[i], group[j])]
        if group is wps or sum(1 for x in new if x) <= 1:
            group[i] = new
    return {"kind": "linear", "reg": regs, "lane": lanes, "warp": wps, "shape": list(shape)}


def make(spec, gl):
    k = spec["kind"]
    if k == "blocked":
        return gl.BlockedLayout(spec["spt"], spec["tpw"], spec["wpc"], spec["order"])
    if k == "slice":
        return gl.SliceLayout(spec["dim"], make(spec["parent"], gl))
    if k == "mma":
        return gl.NVMMADistributedLayout(version=spec["version"], warps_per_cta=spec["wpc"],
                                         instr_shape=spec["instr"])
    if k == "dot":
        return gl.DotOperandLayout(spec["idx"], make(spec["parent"], gl), spec["k_width"])
    if k == "linear":
        return gl.DistributedLinearLayout(spec["reg"], spec["lane"], spec["warp"], spec.get("block", []),
                                          spec["shape"])
    raise ValueError(k)


def pool(shape, warps, rng, bits) -> list[dict]:
    out = []
    rank = len(shape)
    for _ in range(4):
        out.append(blocked(shape, warps, rng))
    for _ in range(2):
        out.append(linear(shape, warps, rng))
    if rank == 2:
        for v in (2, 3):
            m = mma(shape, warps, rng, v)
            if m:
                out.append(m)
        dd = dot(shape, warps, rng, bits)
        if dd:
            out.append(dd)
        out.append(slice3(shape, warps, rng))
    if rank == 1:
        out.append(slice1(shape, warps, rng))
    return out


def cases(n: int, seed: int = 15) -> list[dict]:
    rng = random.Random(seed)
    out, seen = [], set()
    while len(out) < n:
        r = rng.random()
        shape = rng.choice(SHAPES_2D if r < 0.75 else SHAPES_3D if r < 0.9 else SHAPES_1D)
        warps = rng.choice([4, 4, 8])
        dtype = rng.choice(["fp32", "fp16", "fp16", "int8"] + (["fp64"] if rng.random() < 0.1 else []))
        t = rng.random()
        target = "cuda90" if t < 0.8 else "cuda80" if t < 0.92 else "cuda100"
        src, dst = rng.sample(pool(shape, warps, rng, DTYPES[dtype]), 2)
        _add_case(out, seen, "c", shape, warps, dtype, target, src, dst)
    return out


def _add_case(out: list[dict], seen: set, prefix: str, shape, warps, dtype, target, src, dst) -> None:
    """Append the drawn case (id prefix + its number) unless the same one was drawn before."""
    key = json.dumps([shape, warps, dtype, target, src, dst], sort_keys=True)
    if key not in seen:
        seen.add(key)
        out.append({"id": f"{prefix}{len(out):04d}", "shape": shape, "num_warps": warps, "dtype": dtype,
                    "target": target, "src_spec": src, "dst_spec": dst})


# ----------------------------------------------------------------- the warp-broadcast set (--set warp_broadcast)
#
# Conversions around c0397 (a source broadcast over every warp whose destination spreads those warps
# over the source's lanes: Triton 3.9 shuffles with a warp-dependent source lane instead of going
# through shared memory). Ids w000...: first picks from a seeded pool of blocked and sliced pairs at
# small shapes (where warps broadcast), then hand-made linear pairs, then pairs over 2 CTAs.


def _small_pool(n: int = 1500, seed: int = 2024) -> list[dict]:
    """Blocked / 3-D-slice pairs at small 2-D shapes, 4 and 8 warps, fp16 / fp32 / int8, cuda 80/90/100."""
    rng = random.Random(seed)
    out, seen = [], set()
    while len(out) < n:
        shape = rng.choice([[16, 16], [16, 16], [16, 32], [32, 16], [16, 64], [32, 32], [8, 32]])
        warps = rng.choice([4, 4, 8])
        dtype = rng.choice(["fp16", "fp16", "fp32", "int8"])
        target = rng.choice(["cuda80", "cuda90", "cuda100"])
        kinds = [blocked(shape, warps, rng) for _ in range(3)] + [slice3(shape, warps, rng) for _ in range(2)]
        src, dst = rng.sample(kinds, 2)
        key = json.dumps([shape, warps, dtype, target, src, dst], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        out.append({"shape": shape, "num_warps": warps, "dtype": dtype, "target": target,
                    "src_spec": src, "dst_spec": dst})
    return out


# pool entries kept: every warp-dependent shuffle of the pool, and broadcast sources that still go
# through shared memory (a warp picks a register, or two or more mixed transpositions), broadcast
# destinations, and a few plain shuffles
_POOL_PICK = [2, 6, 8, 12, 18, 34, 36, 40, 54, 55, 56, 64, 68, 94, 105, 106, 122, 131, 154, 188, 194, 269,
              274, 289, 325, 352, 358, 385, 386, 415, 455, 463, 473, 475, 520, 557, 585, 586, 600, 624, 764,
              772, 866, 975, 1064, 1081, 1111, 1147, 1198, 1392, 1427, 1441]


def _lin(reg, lane, warp, shape, block=()) -> dict:
    return {"kind": "linear", "reg": reg, "lane": lane, "warp": warp, "block": list(block), "shape": shape}


def _hand_made() -> list[tuple]:
    """(shape, warps, dtype, target, src, dst[, ctas]) pairs written out: 16x16 sources broadcast over
    all, or some, warps (or CTAs), destinations that spread them over lanes, registers or both."""
    S, Z = [16, 16], [0, 0]
    bcast = _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0]], [Z, Z], S)
    c397 = _lin([[0, 1], [1, 0], [2, 0], [8, 0]], [[0, 2], [0, 4], Z, Z, Z], [[0, 8], [4, 0]], S)
    lanes = _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, Z], [[0, 8], [4, 0]], S)
    out = [(S, 4, "fp32", "cuda80", bcast, c397), (S, 4, "int8", "cuda90", bcast, c397),
           (S, 4, "fp64", "cuda90", bcast, c397), (S, 4, "int8", "cuda100", bcast, lanes),
           # a warp picks a register: shared memory
           (S, 4, "fp16", "cuda90", bcast, _lin([[1, 0], [2, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0]],
                                                [[8, 0], Z], S)),
           (S, 4, "fp16", "cuda100", bcast, _lin([[1, 0], [2, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], Z],
                                                 [[8, 0], [4, 0]], S)),
           # one warp bit held, one broadcast
           (S, 4, "fp16", "cuda90", _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], Z],
                                         [[4, 0], Z], S),
            _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, Z], [[4, 0], [0, 8]], S)),
           (S, 4, "fp32", "cuda80", _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], Z],
                                         [Z, [4, 0]], S),
            _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, Z], [[0, 8], [4, 0]], S)),
           # a register/lane transposition as well (one: shuffles; two: shared memory)
           (S, 4, "fp32", "cuda90", bcast, _lin([[0, 1], [2, 0], [8, 0]], [[1, 0], [0, 2], [0, 4], Z, Z],
                                                [[0, 8], [4, 0]], S)),
           (S, 4, "fp16", "cuda90", bcast, _lin([[0, 1], [0, 2], [8, 0]], [[1, 0], [2, 0], [0, 4], Z, Z],
                                                [[0, 8], [4, 0]], S)),
           (S, 4, "fp16", "cuda100", bcast, _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, [4, 0]],
                                                 [[0, 8], Z], S)),
           (S, 4, "fp16", "cuda90", _lin([[1, 0], [2, 0], [8, 0]], [[4, 0], [0, 1], [0, 2], [0, 4], [0, 8]],
                                         [Z, Z], S),
            _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], Z], [[4, 0], Z], S)),
           (S, 4, "fp16", "cuda80", _lin([[1, 0], [2, 0], [8, 0], [0, 1]], [[0, 2], [0, 4], [0, 8], [4, 0], Z],
                                         [Z, Z], S), lanes),
           # a warp picks a combination of lanes: shared memory
           (S, 4, "fp16", "cuda90", bcast, _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, [4, 0]],
                                                [[4, 8], Z], S)),
           (S, 4, "fp16", "cuda80", bcast, _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, Z],
                                                [[0, 9], [4, 0]], S)),
           # broadcast lanes and warps; broadcast destination registers; a lane permutation too
           (S, 4, "fp16", "cuda90", _lin([[1, 0], [2, 0], [4, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], Z],
                                         [Z, Z], S),
            _lin([[1, 0], [2, 0], [4, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, Z], [[0, 8], Z], S)),
           (S, 4, "fp16", "cuda100", bcast, _lin([[0, 1], [1, 0], Z, [2, 0], [8, 0]], [[0, 2], [0, 4], Z, Z, Z],
                                                 [[0, 8], [4, 0]], S)),
           (S, 4, "fp32", "cuda90", bcast, _lin([[1, 0], [2, 0], [8, 0]], [[0, 2], [0, 1], [0, 4], Z, Z],
                                                [[0, 8], [4, 0]], S)),
           # 8 warps
           ([32, 32], 8, "fp16", "cuda90",
            _lin([[1, 0], [2, 0], [8, 0], [16, 0], [0, 16]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0]], [Z, Z, Z],
                 [32, 32]),
            _lin([[1, 0], [2, 0], [8, 0], [16, 0], [0, 16]], [[0, 1], [0, 2], Z, Z, Z], [[0, 8], [4, 0], [0, 4]],
                 [32, 32])),
           # 2 CTAs: a source broadcast over CTAs (and warps) read through the CTA bit; CTA splits in shared memory
           (S, 4, "fp16", "cuda90", _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0]],
                                         [Z, Z], S, [Z]),
            _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, [4, 0]], [Z, Z], S, [[0, 8]]), 2),
           (S, 4, "fp32", "cuda90", _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0]],
                                         [Z, Z], S, [Z]),
            _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, [4, 0]], [[0, 8], Z], S, [Z]), 2),
           ([32, 32], 8, "fp32", "cuda90",
            _lin([[0, 16], [0, 1], [2, 0], [0, 4], [8, 0]], [[16, 0], [0, 8], [1, 0], [0, 2], [4, 0]], [Z, Z, Z],
                 [32, 32], [Z]),
            _lin([[0, 16], [0, 1], [4, 0], [0, 4], [8, 0]], [[16, 0], Z, [1, 0], [0, 2], [2, 0]], [Z, Z, Z],
                 [32, 32], [[0, 8]]), 2),
           ([16, 16], 8, "int8", "cuda90",
            _lin([[4, 0]], [[8, 0], [0, 2], [2, 0], [0, 1], [1, 0]], [[0, 4], [0, 8], Z], S, [Z]),
            _lin([[4, 0]], [[8, 0], Z, Z, [0, 1], [1, 0]], [[0, 4], [0, 8], [2, 0]], S, [[0, 2]]), 2),
           ([32, 16], 8, "fp32", "cuda90",
            _lin([[1, 0], [4, 0], [2, 0], [8, 0]], [[0, 4], [0, 8], [0, 2], [16, 0], [0, 1]], [Z, Z, Z],
                 [32, 16], [Z]),
            _lin([[1, 0], [4, 0], [2, 0], [0, 8]], [Z, [16, 0], [0, 2], Z, [0, 1]], [Z, [8, 0], [0, 4]],
                 [32, 16], [Z]), 2),
           ([32, 16], 4, "fp32", "cuda90",
            _lin([[1, 0], [0, 8], [0, 1]], [[0, 4], Z, [8, 0], [2, 0], [4, 0]], [[0, 2], Z], [32, 16], [[16, 0]]),
            _lin([[1, 0], [0, 8], [0, 1]], [[0, 4], [0, 2], [8, 0], [2, 0], [4, 0]], [Z, Z], [32, 16],
                 [[16, 0]]), 2),
           # 8 warps over a 16x16 tile: two warp bits selecting one lane (shared memory), or one broadcast
           (S, 8, "fp16", "cuda90", _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0]],
                                         [Z, Z, Z], S),
            _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, Z], [[0, 8], [0, 8], [4, 0]], S)),
           (S, 8, "int8", "cuda100", _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0]],
                                          [Z, Z, Z], S),
            _lin([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], Z, Z], [[0, 8], [4, 0], Z], S))]
    return out


def warp_broadcast_cases() -> list[dict]:
    pool = _small_pool()
    out = [dict(pool[i]) for i in _POOL_PICK]
    for t in _hand_made():
        shape, warps, dtype, target, src, dst = t[:6]
        case = {"shape": shape, "num_warps": warps, "dtype": dtype, "target": target, "src_spec": src,
                "dst_spec": dst}
        if len(t) > 6:
            case["num_ctas"] = t[6]
        out.append(case)
    for i, c in enumerate(out):
        c["id"] = f"w{i:03d}"
    return out


# ----------------------------------------------------------------- the AMD set (--set amd)
#
# Ids a000...: blocked, linear and sliced pairs (drawn as the random set draws them, with the target's lanes:
# 64 on gfx942 / gfx950, 32 on gfx1250), 4 and 8 warps, fp32 / fp16 / int8 (and a few fp64), on the three AMD
# targets in turn; recorded with the AMDGCN's LDS, ds_bpermute and permlane instructions instead of PTX's.

AMD_TARGETS = {"gfx942": 64, "gfx950": 64, "gfx1250": 32}
RDNA_TARGETS = {"gfx1100": 32, "gfx1201": 32}       # --set rdna: RDNA3 and RDNA4 (the gfx11 / gfx12 presets)
LANES = {**AMD_TARGETS, **RDNA_TARGETS}


def amd_cases(n: int = 240, seed: int = 42, targets: dict[str, int] = AMD_TARGETS) -> list[dict]:  # noqa: B006
    rng = random.Random(seed)
    out, seen = [], set()
    names = list(targets)
    while len(out) < n:
        target = names[len(out) % len(names)]
        lanes = targets[target]
        r = rng.random()
        shape = rng.choice(SHAPES_2D if r < 0.8 else SHAPES_3D if r < 0.9 else SHAPES_1D)
        warps = rng.choice([4, 4, 8])
        if (math.prod(shape) < lanes * warps) and rng.random() < 0.7:
            continue                    # mostly tensors that fill the CTA's lanes and warps
        dtype = rng.choice(["fp32", "fp16", "fp16", "int8"] + (["fp64"] if rng.random() < 0.1 else []))
        p = [blocked(shape, warps, rng, lanes) for _ in range(4)] + [linear(shape, warps, rng, lanes)
                                                                     for _ in range(2)]
        p.append(slice3(shape, warps, rng, lanes) if len(shape) == 2 else slice1(shape, warps, rng, lanes)
                 if len(shape) == 1 else blocked(shape, warps, rng, lanes))
        src, dst = rng.sample(p, 2)
        _add_case(out, seen, "a", shape, warps, dtype, target, src, dst)
    return out


def rdna_cases(n: int = 240) -> list[dict]:
    """The AMD set's draw for gfx1100 and gfx1201 in turn (another seed)."""
    return amd_cases(n, seed=7, targets=RDNA_TARGETS)


SETS = {"random": None, "warp_broadcast": warp_broadcast_cases, "amd": amd_cases, "rdna": rdna_cases}


# ----------------------------------------------------------------- compiling (Triton imported here only)

_KERNELS = None


def _kernels():
    global _KERNELS
    if _KERNELS is None:
        from triton.experimental import gluon
        from triton.experimental.gluon import language as gl

        @gluon.jit
        def cvt1(x_ptr, y_ptr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
            x = gl.load(x_ptr + gl.arange(0, N, layout=SRC))
            y = gl.convert_layout(x, DST)
            gl.store(y_ptr + gl.arange(0, N, layout=DST), y)

        @gluon.jit
        def cvt2(x_ptr, y_ptr, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
            r = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
            c = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
            x = gl.load(x_ptr + r[:, None] * N + c[None, :])
            y = gl.convert_layout(x, DST)
            r2 = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
            c2 = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
            gl.store(y_ptr + r2[:, None] * N + c2[None, :], y)

        @gluon.jit
        def cvt3(x_ptr, y_ptr, A: gl.constexpr, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr,
                 DST: gl.constexpr):
            a = gl.arange(0, A, layout=gl.SliceLayout(1, gl.SliceLayout(2, SRC)))
            r = gl.arange(0, M, layout=gl.SliceLayout(0, gl.SliceLayout(2, SRC)))
            c = gl.arange(0, N, layout=gl.SliceLayout(0, gl.SliceLayout(1, SRC)))
            x = gl.load(x_ptr + a[:, None, None] * (M * N) + r[None, :, None] * N + c[None, None, :])
            y = gl.convert_layout(x, DST)
            a2 = gl.arange(0, A, layout=gl.SliceLayout(1, gl.SliceLayout(2, DST)))
            r2 = gl.arange(0, M, layout=gl.SliceLayout(0, gl.SliceLayout(2, DST)))
            c2 = gl.arange(0, N, layout=gl.SliceLayout(0, gl.SliceLayout(1, DST)))
            gl.store(y_ptr + a2[:, None, None] * (M * N) + r2[None, :, None] * N + c2[None, None, :], y)

        _KERNELS = (gl, {1: cvt1, 2: cvt2, 3: cvt3})
    return _KERNELS


_OPS = re.compile(r"^\s*(?:@!?%p\d+\s+)?((?:st|ld)\.shared[\w.:]*|stmatrix[\w.:]*|ldmatrix[\w.:]*|shfl[\w.]*|"
                  r"bar\.sync|barrier\.sync[\w.]*)", re.M)
_AMD_OPS = re.compile(r"^\s*(ds_(?:read|write|load|store|bpermute)\w*|v_permlane\w*|s_barrier\w*)\b", re.M)
_CVT = re.compile(r"ttg\.convert_layout %\S+ : tensor<[^,]+, (.*)> -> tensor<[^,]+, (.*)>(?: loc\(.*\))?$", re.M)
_ALIAS = re.compile(r"^(#\w+) = (.*)$", re.M)


def _expand(text: str, aliases: dict) -> str:
    """An encoding's text with every alias (#blocked1, #mma, ...) replaced by its definition."""
    return re.sub(r"#\w+\b(?!\.)", lambda m: _expand(aliases[m.group(0)], aliases) if m.group(0) in aliases
                  else m.group(0), text)


def compile_case(case: dict) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    gl, kernels = _kernels()
    shape = case["shape"]
    fn = kernels[len(shape)]
    names = {1: ["N"], 2: ["M", "N"], 3: ["A", "M", "N"]}[len(shape)]
    sig = {"x_ptr": PTR[case["dtype"]], "y_ptr": PTR[case["dtype"]]}
    sig.update({n: "constexpr" for n in names + ["SRC", "DST"]})
    cx = dict(zip(names, shape))
    cx.update(SRC=make(case["src_spec"], gl), DST=make(case["dst_spec"], gl))
    attrs = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}
    src = GluonASTSource(fn, sig, cx, attrs)
    options = {"num_warps": case["num_warps"], "num_ctas": case.get("num_ctas", 1)}
    amd = case["target"] in LANES
    target = GPUTarget("hip", case["target"], LANES[case["target"]]) if amd else \
        GPUTarget(*TARGETS[case["target"]], 32)
    c = triton.compile(src, target=target, options=options)
    ttgir = c.asm["ttgir"]
    aliases = dict(_ALIAS.findall(ttgir))
    m = _CVT.search(ttgir)
    if m is None:
        raise RuntimeError("no convert_layout in the TTGIR")
    ops = collections.Counter((_AMD_OPS if amd else _OPS).findall(c.asm["amdgcn" if amd else "ptx"]))
    bar = sum(v for k, v in ops.items() if k.startswith(("bar", "s_barrier")))
    ctas = {"num_ctas": case["num_ctas"]} if case.get("num_ctas", 1) != 1 else {}
    return {"id": case["id"], "target": case["target"], "num_warps": case["num_warps"], **ctas, "dtype": case["dtype"],
            "shape": shape, "src": _expand(m.group(1), aliases), "dst": _expand(m.group(2), aliases),
            "shared": c.metadata.shared,
            "amdgcn" if amd else "ptx": {k: v for k, v in sorted(ops.items())
                                         if not k.startswith(("bar", "s_barrier"))},
            "bar": bar}


def run_shard(all_cases: list[dict], shard: int, nshards: int, out) -> None:
    warnings.filterwarnings("ignore")
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    failed = 0
    for case in all_cases[shard::nshards]:
        try:
            rec = compile_case(case)
        except Exception as e:          # Triton rejects the pair (verifier): skipped, counted
            failed += 1
            print(f"skip {case['id']}: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}",
                  file=sys.stderr)
            continue
        out.write(json.dumps(rec) + "\n")
        out.flush()
    print(f"shard {shard}/{nshards}: {failed} skipped", file=sys.stderr)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=480, help="cases of the random set (default 480) or the amd set")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--shard", default=None, help="i/n: compile every n-th case, to stdout")
    ap.add_argument("--after", default="", help="with --shard: start after this case id")
    ap.add_argument("--set", default="random", choices=sorted(SETS),
                    help="random: the seeded corpus (--cases of them); warp_broadcast: the set around c0397")
    ap.add_argument("--append", action="store_true",
                    help="merge into --out (records of the same id replaced) instead of overwriting it")
    a = ap.parse_args(argv)
    all_cases = cases(a.cases) if SETS[a.set] is None else SETS[a.set](a.cases) if a.set in ("amd", "rdna") \
        else SETS[a.set]()
    if a.shard:
        i, n = map(int, a.shard.split("/"))
        mine = [c for c in all_cases[i::n] if c["id"] > a.after]
        run_shard(mine, 0, 1, sys.stdout)
        return 0
    recs = []
    after = {i: "" for i in range(a.jobs)}
    while after:                        # a case that aborts Triton (C++ assertion) kills its shard: resume
        procs = {i: subprocess.Popen([sys.executable, __file__, "--out", "-", "--cases", str(a.cases),
                                      "--set", a.set, "--shard", f"{i}/{a.jobs}", "--after", after[i]],
                                     stdout=subprocess.PIPE, text=True) for i in after}
        for i, p in procs.items():
            out, _ = p.communicate()
            got = [json.loads(line) for line in out.splitlines() if line.strip().startswith("{")]
            recs += got
            if p.returncode == 0:
                del after[i]
                continue
            mine = [c["id"] for c in all_cases[i::a.jobs] if c["id"] > after[i]]
            last = max([r["id"] for r in got] + [after[i]])
            crashed = next((c for c in mine if c > last), None)
            print(f"shard {i}: Triton aborted on {crashed}; resuming after it", file=sys.stderr)
            if crashed is None or crashed == mine[-1]:
                del after[i]
            else:
                after[i] = crashed
    old = []
    if a.append and os.path.exists(a.out):
        with open(a.out) as f:
            old = [json.loads(line) for line in f if line.strip()]
    recs = sorted({r["id"]: r for r in old + recs}.values(), key=lambda r: r["id"])
    with open(a.out, "w") as f:
        for r in recs:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    print(f"{len(recs) - len(old)} new of {len(all_cases)} cases; {len(recs)} records in {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
