"""Gluon kernels for AMD: MFMA (gfx942, gfx950), WMMA (gfx1250), buffer loads, direct-to-LDS
copies (buffer_load_to_shared on gfx950, async copies on gfx1250)."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language import amd
from triton.experimental.gluon.language.amd import cdna3, cdna4

from corpus_kernels import case


@gluon.jit
def mfma_mm(a_ptr, b_ptr, c_ptr, K, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr, LOAD: gl.constexpr,
            SMEM_A: gl.constexpr, SMEM_B: gl.constexpr, MMA: gl.constexpr, KW: gl.constexpr, BUFFER: gl.constexpr):
    A_OP: gl.constexpr = gl.DotOperandLayout(0, MMA, k_width=KW)
    B_OP: gl.constexpr = gl.DotOperandLayout(1, MMA, k_width=KW)
    rm = gl.arange(0, BM, layout=gl.SliceLayout(1, LOAD))
    rka = gl.arange(0, BK, layout=gl.SliceLayout(0, LOAD))
    rkb = gl.arange(0, BK, layout=gl.SliceLayout(1, LOAD))
    rn = gl.arange(0, BN, layout=gl.SliceLayout(0, LOAD))
    a_offs = rm[:, None] * K + rka[None, :]
    b_offs = rkb[:, None] * BN + rn[None, :]
    a_s = gl.allocate_shared_memory(gl.float16, [BM, BK], SMEM_A)
    b_s = gl.allocate_shared_memory(gl.float16, [BK, BN], SMEM_B)
    acc = gl.zeros([BM, BN], gl.float32, layout=MMA)
    for k in range(0, K, BK):
        if BUFFER:
            a = cdna3.buffer_load(a_ptr, a_offs + k)
            b = cdna3.buffer_load(b_ptr, b_offs + k * BN)
        else:
            a = gl.load(a_ptr + a_offs + k)
            b = gl.load(b_ptr + b_offs + k * BN)
        a_s.store(a)
        b_s.store(b)
        acc = cdna3.mfma(a_s.load(A_OP), b_s.load(B_OP), acc)
    rmc = gl.arange(0, BM, layout=gl.SliceLayout(1, MMA))
    rnc = gl.arange(0, BN, layout=gl.SliceLayout(0, MMA))
    if BUFFER:
        cdna3.buffer_store(acc.to(gl.float16), c_ptr, rmc[:, None] * BN + rnc[None, :])
    else:
        gl.store(c_ptr + rmc[:, None] * BN + rnc[None, :], acc.to(gl.float16))


@gluon.jit
def lds_direct_mfma(a_ptr, b_ptr, c_ptr, K, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                    LOAD: gl.constexpr, SMEM: gl.constexpr, MMA: gl.constexpr):
    A_OP: gl.constexpr = gl.DotOperandLayout(0, MMA, k_width=8)
    B_OP: gl.constexpr = gl.DotOperandLayout(1, MMA, k_width=8)
    rm = gl.arange(0, BM, layout=gl.SliceLayout(1, LOAD))
    rka = gl.arange(0, BK, layout=gl.SliceLayout(0, LOAD))
    rn = gl.arange(0, BN, layout=gl.SliceLayout(1, LOAD))
    a_offs = gl.max_contiguous(gl.multiple_of(rm[:, None] * K + rka[None, :], [1, 8]), [1, 8])
    b_offs = gl.max_contiguous(gl.multiple_of(rn[:, None] * K + rka[None, :], [1, 8]), [1, 8])   # B stored [N, K]
    a_s = gl.allocate_shared_memory(gl.float16, [2, BM, BK], SMEM)
    b_s = gl.allocate_shared_memory(gl.float16, [2, BN, BK], SMEM)
    cdna4.async_copy.buffer_load_to_shared(a_s.index(0), a_ptr, a_offs)
    cdna4.async_copy.buffer_load_to_shared(b_s.index(0), b_ptr, b_offs)
    cdna4.async_copy.commit_group()
    acc = gl.zeros([BM, BN], gl.float32, layout=MMA)
    n = K // BK
    for i in range(n):
        if i + 1 < n:
            cdna4.async_copy.buffer_load_to_shared(a_s.index((i + 1) % 2), a_ptr, a_offs + (i + 1) * BK)
            cdna4.async_copy.buffer_load_to_shared(b_s.index((i + 1) % 2), b_ptr, b_offs + (i + 1) * BK)
        cdna4.async_copy.commit_group()
        cdna4.async_copy.wait_group(1)
        a = cdna4.async_copy.load_shared_relaxed(a_s.index(i % 2), A_OP)
        b = cdna4.async_copy.load_shared_relaxed(b_s.index(i % 2).permute((1, 0)), B_OP)
        acc = cdna3.mfma(a, b, acc)
    rmc = gl.arange(0, BM, layout=gl.SliceLayout(1, MMA))
    rnc = gl.arange(0, BN, layout=gl.SliceLayout(0, MMA))
    gl.store(c_ptr + rmc[:, None] * BN + rnc[None, :], acc.to(gl.float16))


@gluon.jit
def wmma_mm(a_ptr, b_ptr, c_ptr, K, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr, LOAD: gl.constexpr,
            SMEM: gl.constexpr, MMA: gl.constexpr):
    A_OP: gl.constexpr = gl.DotOperandLayout(0, MMA, k_width=8)
    B_OP: gl.constexpr = gl.DotOperandLayout(1, MMA, k_width=8)
    rm = gl.arange(0, BM, layout=gl.SliceLayout(1, LOAD))
    rka = gl.arange(0, BK, layout=gl.SliceLayout(0, LOAD))
    rkb = gl.arange(0, BK, layout=gl.SliceLayout(1, LOAD))
    rn = gl.arange(0, BN, layout=gl.SliceLayout(0, LOAD))
    a_s = gl.allocate_shared_memory(gl.float16, [BM, BK], SMEM)
    b_s = gl.allocate_shared_memory(gl.float16, [BK, BN], SMEM)
    acc = gl.zeros([BM, BN], gl.float32, layout=MMA)
    for k in range(0, K, BK):
        a_s.store(cdna3.buffer_load(a_ptr, rm[:, None] * K + (k + rka)[None, :]))
        b_s.store(cdna3.buffer_load(b_ptr, (k + rkb)[:, None] * BN + rn[None, :]))
        acc = amd.gfx1250.wmma(a_s.load(A_OP), b_s.load(B_OP), acc)
    rmc = gl.arange(0, BM, layout=gl.SliceLayout(1, MMA))
    rnc = gl.arange(0, BN, layout=gl.SliceLayout(0, MMA))
    gl.store(c_ptr + rmc[:, None] * BN + rnc[None, :], acc.to(gl.float16))


MM = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"}


def _mfma_cx(BM, BN, BK, instr, kw, buffer, a_smem=None):
    def cx(t):
        version = 4 if t.arch == "gfx950" else 3
        return {"BM": BM, "BN": BN, "BK": BK, "KW": kw, "BUFFER": buffer,
                "LOAD": gl.BlockedLayout([1, 8], [8, 8], [4, 1], [1, 0]),
                "SMEM_A": a_smem or gl.SwizzledSharedLayout(8, 2, 8, [1, 0]),
                "SMEM_B": gl.SwizzledSharedLayout(8, 2, 8, [0, 1]),
                "MMA": amd.AMDMFMALayout(version=version, instr_shape=instr, transposed=True,
                                         warps_per_cta=[2, 2])}
    return cx


def _lds_cx(t):
    return {"BM": 64, "BN": 64, "BK": 64, "LOAD": gl.BlockedLayout([1, 8], [8, 8], [4, 1], [1, 0]),
            "SMEM": gl.PaddedSharedLayout.with_identity_for([[64, 8]], [64, 64], [1, 0]),
            "MMA": amd.AMDMFMALayout(version=4, instr_shape=[16, 16, 32], transposed=True, warps_per_cta=[2, 2])}


def _wmma_cx(t):
    return {"BM": 64, "BN": 64, "BK": 32, "LOAD": gl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0]),
            "SMEM": gl.SwizzledSharedLayout(8, 1, 8, [1, 0]),
            "MMA": amd.AMDWMMALayout(version=3, transposed=True, warp_bases=[[0, 1], [1, 0]], reg_bases=[],
                                     instr_shape=[16, 16, 32])}


CDNA = ("gfx942", "gfx950")

CASES = [
    case("gl_mfma32", mfma_mm, MM, _mfma_cx(64, 64, 32, [32, 32, 8], 4, False), targets=CDNA,
         doc="MFMA 32x32x8 fp16, swizzled LDS"),
    case("gl_mfma16_buffer", mfma_mm, MM, _mfma_cx(64, 64, 64, [16, 16, 16], 4, True), targets=CDNA,
         doc="MFMA 16x16x16 with buffer loads/stores"),
    case("gl_mfma16_padded", mfma_mm, MM,
         _mfma_cx(64, 64, 64, [16, 16, 16], 4, True,
                  gl.PaddedSharedLayout.with_identity_for([[64, 4]], [64, 64], [1, 0])), targets=CDNA,
         doc="MFMA with a padded LDS operand"),
    case("gl_lds_direct_mfma", lds_direct_mfma, MM, _lds_cx, targets=("gfx950",),
         doc="buffer_load_to_shared (direct-to-LDS) double buffer + MFMA 16x16x32"),
    case("gl_wmma", wmma_mm, MM, _wmma_cx, targets=("gfx1250",), doc="WMMA v3 with buffer loads"),
]
