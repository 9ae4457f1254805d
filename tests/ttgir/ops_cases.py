"""Shared by the op-check tests (test_ttgir_ops_common.py, test_ttgir_ops_amd.py, verify/test_ttgir_ops_views.py
and properties/test_op_properties.py): the op checks of a small module or of a kernel Triton 3.9 compiled
(tests/verify/ttgir), evaluated; small modules that break one rule each (TMEM: ttng.tmem_subslice /
tmem_copy on cuda:100, TDM: amdg.async_tdm_copy_global_to_local on gfx1250)."""

from checker.run.runner import evaluate
from checker.syntax.ttgir import read_ttgir
from checker.ttgir.kernel import kernel_checks
from tests.verify.conftest import ROOT

FIXTURES = ROOT / "tests" / "verify" / "ttgir"
OPS = ("scaled_dot", "local_gather", "tmem_subslice", "tmem_copy", "tdm_copy")


def results(kc):
    return [(ob, evaluate(ob)) for ob in kc.obligations if ob.property in OPS]


def run_text(text, name="m.ttgir"):
    """As a run reads it: the module's spellings choose its Triton version (TMEM's ``{N}`` subslice: 3.8)."""
    return kernel_checks(read_ttgir(text, name), name, text=text)


def run_file(name):
    path = FIXTURES / name
    return kernel_checks(read_ttgir(path.read_text(), str(path)), str(path))


HEAD = ('module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "%s", '
        '"ttg.threads-per-warp" = 32 : i32} {\n')

TMEM = """
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#scales = #ttng.tensor_memory_scales_encoding<>
#s0 = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 8}>
#s128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8}>
#smem = #ttg.shared_memory
""" + HEAD % "cuda:100" + """  tt.func @k(%a: !ttg.memdesc<128x4xi8, #s0, #smem>, \
%b: !ttg.memdesc<128x4xi8, #s128, #smem>) {
    %t = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xf32, #tmem, #ttng.tensor_memory, mutable>
    %ok = ttng.tmem_subslice %t {N = 128 : i32} : !ttg.memdesc<128x256xf32, #tmem, #ttng.tensor_memory, \
mutable> -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable, 128x256>
    %bad = ttng.tmem_subslice %t {N = 96 : i32} : !ttg.memdesc<128x256xf32, #tmem, #ttng.tensor_memory, \
mutable> -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable, 128x256>
    %sc = ttng.tmem_alloc : () -> !ttg.memdesc<128x4xi8, #scales, #ttng.tensor_memory, mutable>
    ttng.tmem_copy %a, %sc : !ttg.memdesc<128x4xi8, #s0, #smem>, !ttg.memdesc<128x4xi8, #scales, #ttng.tensor_memory, \
mutable>
    ttng.tmem_copy %b, %sc : !ttg.memdesc<128x4xi8, #s128, #smem>, !ttg.memdesc<128x4xi8, #scales, \
#ttng.tensor_memory, mutable>
    tt.return
  }
}
"""

TDM = """
#pad = #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>
#sw = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
""" + HEAD % "hip:gfx1250" + """  tt.func @k(%d: !tt.tensordesc<64x64xf16, #pad>, %e: !tt.tensordesc<64x64xf16>) {
    %c0 = arith.constant 0 : i32
    %p = arith.constant 1 : i32
    %a = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #pad, #smem, mutable>
    %1 = amdg.async_tdm_copy_global_to_local %d[%c0, %c0] into %a, pred = %p : !tt.tensordesc<64x64xf16, \
#pad> -> !ttg.memdesc<64x64xf16, #pad, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #sw, #smem, mutable>
    %2 = amdg.async_tdm_copy_global_to_local %e[%c0, %c0] into %b, \
pred = %p : !tt.tensordesc<64x64xf16> -> !ttg.memdesc<64x64xf16, #sw, #smem, mutable>
    tt.return
  }
}
"""
