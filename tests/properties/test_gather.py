"""local_gather (LocalGatherOp / LocalScatterOp::verify, the gather lowering) and tdm_copy
(AsyncTDMCopyGlobalToLocalOp::verify, the TDM descriptor fields)."""

from checker.properties.gather import local_gather
from checker.properties.tdm import tdm_copy
from checker.syntax.ttgir import read_ttgir

ALIASES = """
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sw = #ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#flat = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#pad = #ttg.padded_shared<[64:+4] {order = [1, 0], shape = [64, 64]}>
#pad2 = #ttg.padded_shared<[64:+4, 128:+8] {order = [1, 0], shape = [64, 64]}>
#padsmall = #ttg.padded_shared<[2:+1] {order = [1, 0], shape = [64, 64]}>
#padbig = #ttg.padded_shared<[64:+512] {order = [1, 0], shape = [64, 64]}>
#part = #ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0, partitionLayout = #flat}>
#partsw = #ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0, partitionLayout = #sw}>
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
"""
E = read_ttgir(ALIASES + 'module attributes {"ttg.num-warps" = 4 : i32} {}\n')[0].aliases
G = "ttg.local_gather"


def test_gather_holds():
    r = local_gather(E["sw"], E["blocked"], E["blocked"], G, [64, 64], [64, 64], [64, 64], 0, "f16", "i32", "f16")
    assert r.status == "holds", r.explanation


def test_gather_indices_and_result_layouts_differ():
    r = local_gather(E["sw"], E["blocked"], E["blocked1"], G, [64, 64], [64, 64], [64, 64], 0, "f16", "i32", "f16")
    assert "indices and the result must have the same layout" in r.explanation


def test_gather_rules():
    r = local_gather(E["sw"], E["blocked"], E["blocked"], G, [64, 64], [64, 64], [64, 32], 2, "f16", "f32", "bf16")
    for text in ("integer element type, got f32", "shape [64, 32] must match the indices shape [64, 64]",
                 "axis 2 is out of bounds", "element type bf16 must match the buffer's f16"):
        assert text in r.explanation


def test_gather_from_a_partitioned_buffer_is_not_lowered():
    r = local_gather(E["part"], E["blocked"], E["blocked"], G, [64, 64], [64, 64], [64, 64], 0, "f16", "i32", "f16")
    assert "does not lower ttg.local_gather of a partitioned_shared buffer" in r.explanation


def test_tdm_padded_holds_and_reports_the_padding():
    r = tdm_copy(E["pad"], E["pad"], [64, 64], 16)
    assert r.status == "holds", r.explanation
    assert (r.details["pad_interval_dwords"], r.details["pad_amount_dwords"]) == (32, 2)


def test_tdm_refuses_swizzling_and_other_layouts():
    assert "does not support swizzling" in tdm_copy(E["sw"], None, [64, 64], 16).explanation
    assert "in a partitioned layout" in tdm_copy(E["partsw"], None, [64, 64], 16).explanation
    assert "got nvmma_shared" in tdm_copy(E["nv"], None, [64, 64], 16).explanation
    assert tdm_copy(E["part"], E["part"], [64, 64], 16).status == "holds"


def test_tdm_padding_sizes():
    r = tdm_copy(E["padsmall"], None, [64, 64], 16)
    assert "at least 2 dwords" in r.explanation and "at least 1 dword" in r.explanation


def test_tdm_descriptor_fields():
    assert "exactly one (interval, padding) pair" in tdm_copy(E["pad2"], E["pad2"], [64, 64], 16).explanation
    assert "pad amount field holds 1 to 128 dwords" in tdm_copy(E["padbig"], E["padbig"], [64, 64], 16).explanation


def test_tdm_block_size():
    assert "exceeds the maximum 65535" in tdm_copy(E["flat"], None, [1, 131072], 16).explanation
