"""Compile pipelined AMD matmul loops whose LDS reads LLVM may or may not pair: TTGIR fixtures + assembly facts.

    SET='pairs_scaled_e2m1_64x64x128_w2.gfx1250 pairs_scaled_e4m3_128x128x128_w4.gfx1250
         pairs_scaled_masked_64x64x128_w2.gfx1250 pairs_mm_fp8_32x32x64_w1.gfx1250 pairs_mm_fp8_16x64x128_w4.gfx1250
         pairs_mm_bf16_64x16x16_w2_s1.gfx9* pairs_masked_64x16x16_w2_s1.gfx9* pairs_mm_fp8_64x128x16_w4
         pairs_mm_bf16_64x128x64_w1_s1'
    FIX=tests/properties/fixtures/lds_pairs_loop                                # the test's fixtures:
    .venv/bin/python tools/compile_lds_pairs.py --out $FIX --only $SET                  # Triton 3.9.0
    <a Triton 3.8.0 venv>/bin/python tools/compile_lds_pairs.py --out $FIX/triton38 --only $SET
    .venv/bin/python tools/compile_lds_pairs.py --out /tmp/lds_pairs --random 200 --seed 7   # a wider sweep
    .venv/bin/python tools/compile_lds_pairs.py --out /tmp/copies --random-copies 200 --seed 17 --no-curated

LLVM's SILoadStoreOptimizer (Triton 3.9's LLVM) leaves two DS_READs single when, in a loop of one basic block,
each of the two feeds some MFMA/WMMA and together they feed every MFMA/WMMA of the block
(`checker.properties.smem.pairs`, "Loops of one block"). Which TTGIR produces such a loop is what these kernels
probe: small tiles (one pair per operand), larger tiles (several pairs, each feeding a part of the dots),
masked global loads (a branch in the loop on AMD), two dots in one loop, the mxfp scales of ``tt.dot_scaled``.
Transpose copies (``t_copy``, FlagGems' ``t_copy_2d_kernel``; ``--random-copies N``) probe a conversion whose reads
LLVM sinks into a masked store's first branch (checker/ttgir/store_branch.py).

The cases are the corpus's own kernels (tools/corpus_kernels/tl_dots.py: ``mm_loop``, ``scaled_mm``) and two of
this file at chosen tiles, warps and stages, for gfx942, gfx950 and gfx1250; ``--random N`` adds N random
(tile, warps, stages, dtype) picks of ``mm_loop``. Outputs as tools/compile_corpus.py writes them: one
``<case>.<target>.ttgir`` per compile (TTGIR with locations) and ``asm.json``, the shared-memory instructions of
Triton's AMDGCN per TTGIR line. tools/asm_compare.py compares them with what layoutcheck scores
(tests/properties/test_lds_pairs_loop.py).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from compile_corpus import ROOT, run_isolated  # noqa: E402
from corpus_kernels import case  # noqa: E402
from corpus_kernels.tl_dots import mm_loop, scaled_mm  # noqa: E402

TARGETS = ("gfx942", "gfx950", "gfx1250")
SCALED_TARGETS = TARGETS + ("gfx1100", "gfx1201")   # tt.dot_scaled is decomposed (upcasts) where no MFMA takes it


@triton.jit
def mm_masked(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A K loop whose global loads are masked at the K edge (a branch per load on AMD without buffer ops)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * 1024 + rn[None, :], mask=(k + rk)[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * 1024 + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def two_dots(a_ptr, b_ptr, d_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """Two dots per iteration on different operands: no operand feeds every MFMA of the loop."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc2 = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        d = tl.load(d_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
        acc2 = tl.dot(a, d, acc2)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc + acc2)


@triton.jit
def scaled_masked(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr):
    """mxfp4 x mxfp4 whose scale loads are masked at the K edge."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rka = tl.arange(0, BK // 2)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * (K // 2) + (k // 2 + rka)[None, :])
        b = tl.load(b_ptr + (k // 2 + rka)[:, None] * 1024 + rn[None, :])
        ks = (k // 32 + rs)[None, :]
        sa = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + ks, mask=ks < K // 32, other=127)
        sb = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + ks, mask=ks < K // 32, other=127)
        acc = tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1", acc)
    tl.store(c_ptr + rm[:, None] * 1024 + rn[None, :], acc)


@triton.jit
def t_copy(in_ptr, out_ptr, in_stride_0, in_stride_1, out_stride_0, out_stride_1, M, N, BLOCK_M: tl.constexpr,
           BLOCK_N: tl.constexpr, MASKED: tl.constexpr):
    """A tile copied to its transpose (FlagGems' ``t_copy_2d_kernel``, its unit strides specialized): the load
    coalesced along one axis, the store along the other, a conversion between them whose result feeds the store,
    masked at both edges (a branch per store vector on AMD) or not."""
    i = (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)[None, :]
    j = (tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)[:, None]
    if MASKED:
        mask = (i < N) & (j < M)
        x = tl.load(in_ptr + j * in_stride_0 + i * in_stride_1, mask=mask)
        tl.store(out_ptr + i * out_stride_0 + j * out_stride_1, x, mask=mask)
    else:
        x = tl.load(in_ptr + j * in_stride_0 + i * in_stride_1)
        tl.store(out_ptr + i * out_stride_0 + j * out_stride_1, x)


@triton.jit
def t_copy2(a_ptr, b_ptr, oa_ptr, ob_ptr, s0, t0, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Two tiles copied to their transposes, one after the other: the second conversion's reads follow the first
    store's branches and sink into the second store's first branch."""
    i = (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)[None, :]
    j = (tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)[:, None]
    mask = (i < N) & (j < M)
    x = tl.load(a_ptr + j * s0 + i, mask=mask)
    y = tl.load(b_ptr + j * s0 + i, mask=mask)
    tl.store(oa_ptr + i * t0 + j, x, mask=mask)
    tl.store(ob_ptr + i * t0 + j, y, mask=mask)


def _copy_case(name, BM, BN, dtype, num_warps, masked=True, targets=SCALED_TARGETS):
    return case(name, t_copy, {"in_ptr": f"*{dtype}", "out_ptr": f"*{dtype}", "in_stride_0": "i32",
                               "out_stride_0": "i32", "M": "i32", "N": "i32"},
                {"in_stride_1": 1, "out_stride_1": 1, "BLOCK_M": BM, "BLOCK_N": BN, "MASKED": masked},
                targets=targets, doc=f"{'masked ' if masked else ''}{dtype} transpose copy {BM}x{BN}",
                num_warps=num_warps)


def _mm_types(dtype: str):
    def types(target):
        t = {"fp8": "*fp8e4b8" if target.arch == "gfx942" else "*fp8e4nv"}.get(dtype, f"*{dtype}")
        return {"a_ptr": t, "b_ptr": t, "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
    return types


def _mm_case(name, BM, BN, BK, dtype="fp16", num_warps=4, num_stages=2, targets=TARGETS):
    return case(name, mm_loop, _mm_types(dtype),
                {"BM": BM, "BN": BN, "BK": BK, "TRANS_A": False, "TRANS_B": False, "PRECISION": "ieee",
                 "ACC_INT": False},
                targets=targets, doc=f"{dtype} K loop {BM}x{BN}x{BK}", num_warps=num_warps, num_stages=num_stages)


def curated():
    cases = [
        _mm_case("pairs_mm_16x16x32_w1", 16, 16, 32, num_warps=1),
        _mm_case("pairs_mm_32x32x16_w1", 32, 32, 16, num_warps=1),
        _mm_case("pairs_mm_32x32x32_w1", 32, 32, 32, num_warps=1),
        _mm_case("pairs_mm_32x32x32_w4", 32, 32, 32, num_warps=4),
        _mm_case("pairs_mm_64x64x32_w4", 64, 64, 32, num_warps=4),
        _mm_case("pairs_mm_128x128x32_w4", 128, 128, 32, num_warps=4),
        _mm_case("pairs_mm_bf16_32x64x64_w2", 32, 64, 64, dtype="bf16", num_warps=2),
        _mm_case("pairs_mm_fp8_32x32x64_w1", 32, 32, 64, dtype="fp8", num_warps=1),
        _mm_case("pairs_mm_16x16x32_w1_s1", 16, 16, 32, num_warps=1, num_stages=1),
        _mm_case("pairs_mm_bf16_64x16x16_w2_s1", 64, 16, 16, dtype="bf16", num_warps=2, num_stages=1),
        _mm_case("pairs_mm_fp8_64x128x16_w4", 64, 128, 16, dtype="fp8", num_warps=4),
        _mm_case("pairs_mm_fp8_16x64x128_w4", 16, 64, 128, dtype="fp8", num_warps=4),
        _mm_case("pairs_mm_bf16_64x128x64_w1_s1", 64, 128, 64, dtype="bf16", num_warps=1, num_stages=1,
                 targets=("gfx942",)),    # stores of one address register with others' stores between them
        case("pairs_masked_64x16x16_w2_s1", mm_masked, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16",
                                                        "K": "i32"},
             {"BM": 64, "BN": 16, "BK": 16}, targets=TARGETS, doc="masked K loop", num_warps=2, num_stages=1),
        case("pairs_masked_32x32x32_w1", mm_masked, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"},
             {"BM": 32, "BN": 32, "BK": 32}, targets=TARGETS, doc="masked K loop", num_warps=1, num_stages=2),
        case("pairs_two_dots_32x32x32_w1", two_dots,
             {"a_ptr": "*fp16", "b_ptr": "*fp16", "d_ptr": "*fp16", "c_ptr": "*fp32", "K": "i32"},
             {"BM": 32, "BN": 32, "BK": 32}, targets=TARGETS, doc="two dots per iteration", num_warps=1,
             num_stages=2),
    ]
    for BM, BN, BK, w in ((32, 32, 128, 1), (64, 64, 128, 2), (128, 128, 128, 4)):
        for fmt in ("e2m1", "e4m3"):
            a = "*u8" if fmt == "e2m1" else "*fp8e4nv"
            cases.append(case(f"pairs_scaled_{fmt}_{BM}x{BN}x{BK}_w{w}", scaled_mm,
                              {"a_ptr": a, "a_scale_ptr": "*u8", "b_ptr": "*u8", "b_scale_ptr": "*u8",
                               "c_ptr": "*fp32", "K": "i32"},
                              {"BM": BM, "BN": BN, "BK": BK, "A_FMT": fmt, "B_FMT": "e2m1"},
                              targets=("gfx950", "gfx1250"), doc=f"dot_scaled {fmt} x e2m1", num_warps=w,
                              num_stages=2))
    # after the loop: a read sunk into the epilogue's scf.if (no phi), and reads that feed dot_scaled's upcasts on
    # RDNA outside it (the phi is LLVM's placement: the first keeps four pairs of its B read, the second fuses one)
    cases.append(_mm_case("pairs_mm_32x64x64_w4", 32, 64, 64, num_warps=4, targets=("gfx942",)))
    # three stages on RDNA4: each epilogue read sinks into its own branch, and LLVM merges no phi there
    cases.append(_mm_case("pairs_mm_fp8_32x128x64_w2_s3", 32, 128, 64, dtype="fp8", num_warps=2, num_stages=3,
                          targets=("gfx1201",)))
    for BM, BK in ((64, 64), (32, 128)):
        cases.append(case(f"pairs_scaled_rdna_e4m3_{BM}x32x{BK}_w1", scaled_mm,
                          {"a_ptr": "*fp8e4nv", "a_scale_ptr": "*u8", "b_ptr": "*u8", "b_scale_ptr": "*u8",
                           "c_ptr": "*fp32", "K": "i32"},
                          {"BM": BM, "BN": 32, "BK": BK, "A_FMT": "e4m3", "B_FMT": "e2m1"}, targets=("gfx1100",),
                          doc="dot_scaled e4m3 x e2m1, decomposed on RDNA3", num_warps=1, num_stages=2))
    # one warp on RDNA3: the A tile's stores into swizzled_shared pair with the allocation's offset in their
    # immediates (a plain pair past 255 elements goes stride-64 on a shifted base)
    for BM, BN, BK, stages in ((32, 64, 64, 2), (128, 32, 128, 3)):
        cases.append(case(f"pairs_scaled_rdna_e2m1_{BM}x{BN}x{BK}_w1_s{stages}", scaled_mm,
                          {"a_ptr": "*u8", "a_scale_ptr": "*u8", "b_ptr": "*u8", "b_scale_ptr": "*u8",
                           "c_ptr": "*fp32", "K": "i32"},
                          {"BM": BM, "BN": BN, "BK": BK, "A_FMT": "e2m1", "B_FMT": "e2m1"}, targets=("gfx1100",),
                          doc="dot_scaled e2m1 x e2m1, decomposed on RDNA3, one warp", num_warps=1,
                          num_stages=stages))
    # one warp on gfx950: the A scale read's lanes repeat at lane 5, the top lane, so no address register of its own
    cases.append(case("pairs_scaled_e4m3_128x32x128_w1", scaled_mm,
                      {"a_ptr": "*fp8e4nv", "a_scale_ptr": "*u8", "b_ptr": "*fp8e4nv", "b_scale_ptr": "*u8",
                       "c_ptr": "*fp32", "K": "i32"},
                      {"BM": 128, "BN": 32, "BK": 128, "A_FMT": "e4m3", "B_FMT": "e4m3"}, targets=("gfx950",),
                      doc="dot_scaled e4m3 x e4m3, one warp", num_warps=1, num_stages=2))
    for BM, BN, w in ((64, 64, 2), (128, 128, 4)):
        cases.append(case(f"pairs_scaled_masked_{BM}x{BN}x128_w{w}", scaled_masked,
                          {"a_ptr": "*u8", "a_scale_ptr": "*u8", "b_ptr": "*u8", "b_scale_ptr": "*u8",
                           "c_ptr": "*fp32", "K": "i32"}, {"BM": BM, "BN": BN, "BK": 128},
                          targets=("gfx1250",), doc="dot_scaled with masked scale loads", num_warps=w, num_stages=2))
    # a masked transpose copy (FlagGems' t_copy_2d_kernel): the conversion's reads that feed only the first store
    # vector sink into that store's branch, away from their pair partners
    cases.append(_copy_case("pairs_tcopy_masked_64x64_w4", 64, 64, "fp16", 4, targets=("gfx1250",)))
    # ... two vectors per branch (a mask of constancy 16): the sunk reads pair among themselves, stride-64
    cases.append(_copy_case("pairs_tcopy_masked_f32_64x32_w2", 64, 32, "fp32", 2, targets=("gfx1250",)))
    # ... the sunk pairs at the store's line
    cases.append(_copy_case("pairs_tcopy_masked_bf16_128x16_w2", 128, 16, "bf16", 2, targets=("gfx1250",)))
    # ... one warp, some partners apart: 12 pairs and 8 single reads
    cases.append(_copy_case("pairs_tcopy_masked_i8_128x32_w1", 128, 32, "i8", 1, targets=("gfx1250",)))
    # two copies in a row: each conversion's reads sink into its own store's first branch
    cases.append(case("pairs_tcopy2_masked_f32_64x32_w2", t_copy2,
                      {p: "*fp32" for p in ("a_ptr", "b_ptr", "oa_ptr", "ob_ptr")} | {a: "i32" for a in
                                                                                      ("s0", "t0", "M", "N")},
                      {"BLOCK_M": 64, "BLOCK_N": 32}, targets=("gfx1250",), doc="two masked fp32 transpose copies",
                      num_warps=2))
    # no mask, no branch: every pair fused
    cases.append(_copy_case("pairs_tcopy_64x64_w4", 64, 64, "fp16", 4, masked=False, targets=("gfx1250",)))
    return cases


def randomized(n: int, seed: int, targets: tuple[str, ...] = TARGETS):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        BM, BN = rng.choice((16, 32, 64, 128)), rng.choice((16, 32, 64, 128))
        BK = rng.choice((16, 32, 64, 128))
        dtype = rng.choice(("fp16", "bf16", "fp8"))
        w = rng.choice((1, 2, 4, 8))
        s = rng.choice((1, 2, 3))
        target = rng.choice(targets)
        out.append(_mm_case(f"rand{i:03d}_{dtype}_{BM}x{BN}x{BK}_w{w}_s{s}", BM, BN, BK, dtype, w, s, (target,)))
    return out


def randomized_scaled(n: int, seed: int):
    """N random ``scaled_mm`` configurations (tile, formats, warps, stages), each for one random AMD target:
    the decomposed dot_scaled's operand reads after the loop feed the upcasts outside the epilogue's scf.if."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        BM, BN, BK = rng.choice((32, 64, 128)), rng.choice((32, 64, 128)), rng.choice((64, 128))
        if BM * BN * BK > 128 * 64 * 128:             # LLVM takes minutes on the upcasts of larger tiles
            BM = BN = 64
        fa, fb = rng.choice(("e2m1", "e4m3", "e5m2")), rng.choice(("e2m1", "e4m3"))
        w, s, target = rng.choice((1, 2, 4, 8)), rng.choice((2, 3)), rng.choice(SCALED_TARGETS)
        ptr = {"e2m1": "*u8", "e4m3": "*fp8e4nv", "e5m2": "*fp8e5"}
        out.append(case(f"rscaled{i:03d}_{fa}_{fb}_{BM}x{BN}x{BK}_w{w}_s{s}", scaled_mm,
                        {"a_ptr": ptr[fa], "a_scale_ptr": "*u8", "b_ptr": ptr[fb], "b_scale_ptr": "*u8",
                         "c_ptr": "*fp32", "K": "i32"},
                        {"BM": BM, "BN": BN, "BK": BK, "A_FMT": fa, "B_FMT": fb}, targets=(target,),
                        doc=f"dot_scaled {fa} x {fb}", num_warps=w, num_stages=s))
    return out


def randomized_copies(n: int, seed: int):
    """N random ``t_copy`` configurations (tile, element type, warps, masked or not), each for one random AMD
    target: the conversion's reads that feed only a masked store's first vector sink into its branch."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        BM, BN = rng.choice((16, 32, 64, 128)), rng.choice((16, 32, 64, 128))
        dtype, w = rng.choice(("fp16", "bf16", "fp32", "i8", "fp64")), rng.choice((1, 2, 4, 8))
        masked, target = rng.random() < 0.75, rng.choice(SCALED_TARGETS)
        out.append(_copy_case(f"rcopy{i:03d}_{dtype}_{BM}x{BN}_w{w}{'_m' if masked else ''}", BM, BN, dtype, w,
                              masked, (target,)))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--random", type=int, default=0, help="also N random mm_loop configurations")
    ap.add_argument("--random-scaled", type=int, default=0, help="also N random scaled_mm configurations")
    ap.add_argument("--random-copies", type=int, default=0, help="also N random t_copy configurations")
    ap.add_argument("--random-targets", nargs="*", choices=SCALED_TARGETS, default=list(TARGETS),
                    help="the targets --random picks from (default: gfx942 gfx950 gfx1250)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-curated", action="store_true")
    ap.add_argument("--only", nargs="*", help="case or <case>.<target> names, fnmatch patterns (default: all)")
    ap.add_argument("--targets", nargs="*", choices=SCALED_TARGETS, help="target tags (default: each case's own)")
    args = ap.parse_args(argv)
    cases = ([] if args.no_curated else curated()) + randomized(args.random, args.seed, tuple(args.random_targets)) \
        + randomized_scaled(args.random_scaled, args.seed) + randomized_copies(args.random_copies, args.seed)
    os.makedirs(args.out, exist_ok=True)
    asm_path = os.path.join(args.out, "asm.json")
    asm = json.load(open(asm_path)) if os.path.exists(asm_path) else {}
    hint = os.path.relpath(os.path.abspath(args.out), ROOT)
    for c in cases:
        for tag in c["targets"]:
            name = f"{c['name']}.{tag}.ttgir"
            if args.only and not any(fnmatch.fnmatch(name[:-len(".ttgir")], p) or fnmatch.fnmatch(c["name"], p)
                                     for p in args.only) or args.targets and tag not in args.targets:
                continue
            t0 = time.time()
            fixture, fact, reason = run_isolated(c, tag, hint)
            if fixture is None:
                print(f"SKIP {name}: {reason}", file=sys.stderr)
                continue
            fixture = fixture.replace("tools/compile_corpus.py", "tools/compile_lds_pairs.py", 1)
            asm[name] = fact
            with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
                f.write(fixture)
            print(f"{name}: shared={fact['shared']} [{time.time() - t0:.1f}s]", file=sys.stderr)
    with open(asm_path, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(asm.items())), f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
