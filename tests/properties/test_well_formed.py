"""well_formed and dot_operands: the static checks TTGIR adds, with the rule each failure names."""

import pytest

from checker import parse_encoding
from checker.properties.well_formed import dot_operands, well_formed

MMA2 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
MMA2_4X1 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>"
MMA3 = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>"
NVMMA = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
SWIZZLED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"


def dot(op_idx, parent, k_width=2):
    return parse_encoding(f"#ttg.dot_op<{{opIdx = {op_idx}, parent = {parent}, kWidth = {k_width}}}>")


def test_well_formed_counts_lanes_warps_and_ctas():
    enc = parse_encoding(BLOCKED)
    ok = well_formed(enc, [64, 64], lanes=32, warps=(4,), ctas=1)
    assert (ok.status, ok.explanation, ok.details) == (
        "holds", "valid blocked layout at shape [64, 64]", {"in_dims": {"register": 32, "lane": 32, "warp": 4,
                                                                          "block": 1}})
    bad = well_formed(enc, [64, 64], lanes=64, warps=(8, 2), ctas=2)
    assert bad.status == "fails"
    assert bad.explanation == (
        "the layout spans 32 lanes but the module has ttg.threads-per-warp = 64; the layout spans 4 warps but the "
        "module has 8 or 2 (ttg.num-warps and its warp_specialize partitions); the layout spans 1 CTAs but the "
        "module has ttg.num-ctas = 2")
    assert bad.verdicts == {} and bad.counterexample is None


def test_well_formed_reports_what_the_lowering_rejects():
    r = well_formed(parse_encoding(NVMMA), [4, 32])
    assert (r.status, r.explanation) == (
        "fails", "shape: nvmma_shared: block shape along the contiguous dimension 1 is too small for the swizzle "
                 "byte size 128 in an NVMMASharedLayout, got 32 but expected at least 64")


def test_dot_operands_accept_ampere_and_hopper_forms():
    acc2 = parse_encoding(MMA2)
    assert dot_operands(dot(0, MMA2), dot(1, MMA2), acc2, [64, 32], [32, 64], [64, 64]).status == "holds"
    acc3 = parse_encoding(MMA3)
    nvmma = parse_encoding(NVMMA)
    assert dot_operands(nvmma, nvmma, acc3, [64, 64], [64, 64], [64, 64]).status == "holds"
    assert dot_operands(dot(0, MMA3), nvmma, acc3, [64, 64], [64, 64], [64, 64]).status == "holds"


@pytest.mark.parametrize("a, b, acc, shapes, message", [
    (dot(1, MMA2), dot(1, MMA2), MMA2, ([64, 32], [32, 64], [64, 64]), "A has opIdx = 1, expected 0"),
    (dot(0, MMA2), dot(1, MMA2_4X1), MMA2, ([64, 32], [32, 64], [64, 64]),
     "B's parent is not the accumulator's encoding"),
    (dot(0, MMA2), dot(1, MMA2, 4), MMA2, ([64, 32], [32, 64], [64, 64]), "kWidth differs between A (2) and B (4)"),
    (dot(0, MMA2), dot(1, MMA2), MMA2, ([64, 32], [16, 64], [64, 64]), "K differs: A is [64, 32], B is [16, 64]"),
    (dot(0, MMA2), dot(1, MMA2), MMA2, ([64, 32], [32, 64], [32, 64]),
     "A [64, 32] x B [32, 64] does not give the accumulator's [32, 64]"),
    (dot(0, MMA2), dot(1, MMA2), MMA2, ([64, 32], [32, 64], [2, 64, 64]), "ranks differ"),
    (parse_encoding(BLOCKED), dot(1, MMA2), MMA2, ([64, 32], [32, 64], [64, 64]),
     "A must be a dot_op encoding, got blocked"),
    (dot(0, MMA2), parse_encoding(NVMMA), MMA2, ([64, 32], [32, 64], [64, 64]),
     "B is read from shared memory, which only an NVIDIA MMA v3 (warp_group_dot) accumulator can do"),
    (dot(0, MMA3), parse_encoding(SWIZZLED), MMA3, ([64, 64], [64, 64], [64, 64]),
     "B is read by wgmma from shared memory, which needs an nvmma_shared layout; got swizzled_shared"),
])
def test_dot_operands_name_the_broken_rule(a, b, acc, shapes, message):
    acc = parse_encoding(acc) if isinstance(acc, str) else acc
    r = dot_operands(a, b, acc, *shapes)
    assert r.status == "fails"
    assert message in r.explanation


def test_padded_shared_is_well_formed_through_its_linear_component():
    from checker import parse_encoding
    enc = parse_encoding("#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 32]}>")
    r = well_formed(enc, [64, 32], ctas=1)
    assert r.status == "holds" and r.details == {"in_dims": {"offset": 2048, "block": 1}}
    assert (well_formed(enc, [64, 32], ctas=2).explanation
            == "the layout spans 1 CTAs but the module has ttg.num-ctas = 2")


def test_dot_operand_parents_follow_tritons_infer_dot_op_encoding():
    from checker import parse_encoding
    mma = parse_encoding("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
                         "instrShape = [16, 64, 16]}>")
    mma1 = parse_encoding("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
                          "instrShape = [16, 16, 16]}>")
    mma_2w = parse_encoding("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], "
                            "instrShape = [16, 16, 16]}>")
    shared = parse_encoding("#ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16}>")
    from checker.encodings.dot_operand import DotOperandEncoding
    # a chained wgmma keeps A's parent (instrShape N = 16) under an N = 64 accumulator: same registers
    chained = dot_operands(DotOperandEncoding(0, mma1, 2), shared, mma, [128, 16], [16, 64], [128, 64])
    assert chained.status == "holds"
    moved = dot_operands(DotOperandEncoding(0, mma_2w, 2), shared, mma, [128, 16], [16, 64], [128, 64])
    assert moved.explanation == ("A's parent is not the accumulator's encoding and A holds its elements "
                                 "elsewhere than the accumulator's dot operand layout would at [128, 16]")
    acc = parse_encoding("#ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {warp = [[0, 1], [1, 0]]}, "
                         "CGALayout = [[1, 0], [0, 1]], instrShape = [16, 16, 32]}>")
    dim2 = parse_encoding("#ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {warp = [[0, 1], [1, 0]]}, "
                          "CGALayout = [[0, 0], [0, 1]], instrShape = [16, 16, 32]}>")
    r = dot_operands(DotOperandEncoding(0, dim2, 8), DotOperandEncoding(1, dim2, 8), acc, [32, 32], [32, 32],
                     [32, 32])
    assert r.explanation == ("operand 0's CGA layout [[0, 0], [0, 0]] is not the accumulator's with dim1 "
                             "broadcast [[1, 0], [0, 0]]")
    v2 = parse_encoding("#ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {warp = [[0, 1], [1, 0]]}, "
                        "instrShape = [16, 16, 16]}>")
    v3 = parse_encoding("#ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {warp = [[0, 1], [1, 0]]}, "
                        "instrShape = [16, 16, 32]}>")
    bad = dot_operands(DotOperandEncoding(0, v3, 8), DotOperandEncoding(1, v2, 8), v3, [16, 16], [16, 16], [16, 16])
    assert bad.explanation == "B's parent is not the accumulator's encoding"
