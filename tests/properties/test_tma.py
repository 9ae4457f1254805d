"""tma_copy: Triton's verifyTMAEncoding / verifyAsyncTMALoadOp / verifyAsyncTMAStoreOp rules and the TMA box."""

from checker.properties.tma import tma_copy
from checker.syntax.ttgir import read_ttgir

ALIASES = """
#n128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#n64 = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#nt = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
#sw = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
"""
E = read_ttgir(ALIASES + 'module attributes {"ttg.num-warps" = 4 : i32} {}\n')[0].aliases
LOAD = "ttng.async_tma_copy_global_to_local"


def test_box_of_a_128_byte_swizzle():
    r = tma_copy(E["n128"], E["n128"], LOAD, [128, 64], [128, 64], "f16", "f16", True)
    assert r.status == "holds", r.explanation
    assert r.details["box"] == [128, 64] and r.details["inner_box_bytes"] == 128


def test_buffer_must_be_nvmma():
    r = tma_copy(E["sw"], E["n128"], LOAD, [128, 64], [128, 64], "f16", "f16", True)
    assert "must have an nvmma_shared layout, got swizzled_shared" in r.explanation


def test_descriptor_must_match():
    r = tma_copy(E["n64"], E["n128"], LOAD, [128, 64], [128, 64], "f16", "f16", True)
    assert "swizzlingByteWidth 128 vs 64" in r.explanation


def test_not_transposed():
    r = tma_copy(E["nt"], E["nt"], LOAD, [64, 128], [64, 128], "f16", "f16", True)
    assert "must not be transposed" in r.explanation


def test_load_into_immutable_buffer():
    r = tma_copy(E["n128"], E["n128"], LOAD, [128, 64], [128, 64], "f16", "f16", False)
    assert "must be mutable" in r.explanation


def test_element_count_and_type():
    r = tma_copy(E["n128"], E["n128"], LOAD, [128, 64], [64, 64], "f16", "bf16", True)
    assert "element types differ" in r.explanation and "8192" in r.explanation


def test_box_too_narrow_for_the_swizzle():
    r = tma_copy(E["n128"], E["n128"], LOAD, [128, 32], [128, 32], "f16", "f16", True)
    assert r.status == "fails" and "too small" in r.explanation
