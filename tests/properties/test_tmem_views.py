"""tmem_subslice / tmem_copy: Triton's TMEMSubSliceOp::verify and TMEMCopyOp::verify rules."""

from checker.properties.tmem_views import tmem_copy, tmem_subslice
from checker.syntax.ttgir import read_ttgir

ALIASES = """
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tmem64 = #ttng.tensor_memory_encoding<blockM = 64, blockN = 128, colStride = 1>
#scales = #ttng.tensor_memory_scales_encoding<>
#n128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#n0 = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 8}>
#n0t = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = true, elementBitWidth = 8}>
#sw = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
"""
E = read_ttgir(ALIASES + 'module attributes {"ttg.num-warps" = 4 : i32} {}\n')[0].aliases


def test_subslice_of_a_128x256_buffer():
    r = tmem_subslice(E["tmem"], E["tmem"], [128, 256], [128, 64], [128, 256], [128, 256], "f32", "f32", 128, 32)
    assert r.status == "holds", r.explanation
    assert (r.details["tmem_row"], r.details["tmem_col"]) == (0, 128)


def test_subslice_offset_must_be_a_multiple_of_the_width():
    r = tmem_subslice(E["tmem"], E["tmem"], [128, 256], [128, 64], [128, 256], [128, 256], "f32", "f32", 32, 32)
    assert "N = 32 is not a multiple of the result's width 64" in r.explanation


def test_subslice_offset_inside_the_source():
    r = tmem_subslice(E["tmem"], E["tmem"], [128, 128], [128, 64], [128, 128], [128, 128], "f32", "f32", 128, 32)
    assert "not inside the source's 128 columns" in r.explanation


def test_subslice_keeps_the_encoding_and_rows():
    r = tmem_subslice(E["tmem"], E["tmem64"], [128, 128], [64, 64], [128, 128], [128, 128], "f32", "f32", 0, 32)
    assert "blockM 64 vs 128" in r.explanation and "keep the source's 128 rows, got 64" in r.explanation


def test_subslice_of_shared_memory_is_refused():
    r = tmem_subslice(E["sw"], E["sw"], [128, 128], [128, 128], [128, 128], [128, 128], "i32", "i32", 0, 32)
    assert "must be a tensor_memory_encoding buffer, got swizzled_shared" in r.explanation


def test_copy_of_scales():
    r = tmem_copy(E["n0"], E["scales"], [128, 4], [128, 4], [128, 4], [128, 4], 8, True, True)
    assert r.status == "holds", r.explanation


def test_copy_into_immutable_tmem():
    r = tmem_copy(E["n0"], E["scales"], [128, 4], [128, 4], [128, 4], [128, 4], 8, True, False)
    assert "must be mutable" in r.explanation


def test_copy_of_a_transposed_source():
    r = tmem_copy(E["n0t"], E["scales"], [128, 4], [128, 4], [128, 4], [128, 4], 8, True, True)
    assert "neither transposed nor fp4Padded" in r.explanation


def test_copy_into_tensor_memory_needs_32_bit_swizzled():
    ok = tmem_copy(E["n128"], E["tmem"], [128, 128], [128, 128], [128, 128], [128, 128], 32, True, True)
    assert ok.status == "holds", ok.explanation
    r = tmem_copy(E["n0"], E["tmem"], [128, 128], [128, 128], [128, 128], [128, 128], 8, True, True)
    assert "needs a swizzled nvmma_shared source" in r.explanation and "needs 32-bit elements, got 8" in r.explanation


def test_copy_shapes_must_match():
    r = tmem_copy(E["n128"], E["tmem"], [128, 64], [128, 128], [128, 64], [128, 128], 32, True, True)
    assert "source shape [128, 64] must match the destination shape [128, 128]" in r.explanation
