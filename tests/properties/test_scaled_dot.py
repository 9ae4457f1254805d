"""scaled_dot: Triton's DotScaledOp::verify / deduceScaleFactor rules and the lowering's layout rules."""

from checker.properties.scaled_dot import scaled_dot
from checker.syntax.ttgir import read_ttgir

ALIASES = """
#blocked = #ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#linear = #ttg.linear<{register = [[0, 2], [64, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 1]], \
warp = [[0, 0], [32, 0]], block = []}>
#mma = #ttg.amd_mfma<{version = 4, warpsPerCTA = [2, 2], instrShape = [32, 32, 64], isTransposed = true}>
#a = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 16}>
#b = #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 16}>
"""
E = read_ttgir(ALIASES + 'module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {}\n'
               )[0].aliases


def mxfp4(a=E["a"], b=E["b"], acc=E["mma"], sa=E["linear"], sb=E["linear"], a_shape=(128, 64), b_shape=(64, 128),
          c_shape=(128, 128), sa_shape=(128, 4), sb_shape=(128, 4), lhs="e2m1", rhs="e2m1", **kw):
    return scaled_dot(a, b, acc, sa, sb, a_shape, b_shape, c_shape, sa_shape, sb_shape, lhs, rhs, **kw)


def test_mxfp4_on_mfma():
    r = mxfp4()
    assert r.status == "holds", r.explanation
    assert r.details["scale_factor"] == 32


def test_k_mismatch():          # Triton/invalid.mlir: e2m1 [128, 32] (K = 64) x e4m3 [128, 128]
    r = mxfp4(a=E["blocked"], b=E["blocked"], acc=E["blocked"], a_shape=(128, 32), b_shape=(128, 128),
              sa_shape=(128, 2), sb_shape=None, rhs="e4m3")
    assert "K differs: A [128, 32] gives K = 64, B [128, 128] gives K = 128" in r.explanation


def test_scale_factor_16_or_32():
    r = mxfp4(sa_shape=(128, 128))
    assert "scale factor must be 16 or 32, got 1" in r.explanation


def test_scale_factors_must_agree():
    r = mxfp4(sa_shape=(128, 8))
    assert "same scale factor (A: 16, B: 32)" in r.explanation


def test_scale_dims():
    r = mxfp4(sb_shape=(64, 4))
    assert "B's scale [64, 4]: its dim 0 must be N = 128" in r.explanation


def test_k_pack_false_packs_along_m():
    kw = dict(a=E["blocked"], b=E["blocked"], acc=E["blocked"], sa=E["blocked"], sb=E["blocked"], a_shape=(64, 128))
    r = mxfp4(lhs_k_pack=False, **kw)            # A [64, 128] packs M: [128, 128] unpacked
    assert r.status == "holds", r.explanation
    r = mxfp4(**kw)                              # packed along K: A gives M = 64, K = 256
    assert "K differs: A [64, 128] gives K = 256" in r.explanation and "gives [64, 128]" in r.explanation


def test_mfma_needs_dot_operands_and_linear_scales():
    r = mxfp4(a=E["blocked"], sa=E["blocked"])
    assert "A must be a dot_op operand (opIdx 0)" in r.explanation
    assert "A's scale must have a linear layout" in r.explanation


def test_mfma_single_scale():
    r = mxfp4(sb=None, sb_shape=None)
    assert "single scale is not supported" in r.explanation


def test_blocked_result_is_not_yet_lowered():
    r = mxfp4(a=E["blocked"], b=E["blocked"], acc=E["blocked"], sa=E["blocked"], sb=E["blocked"])
    assert r.status == "holds", r.explanation
