"""Triton's own view of a convert_layout: minimal conversion, triviality, class and lowering
(checker.properties.triton_conversion), on layouts Triton builds."""

from checker import lower, parse_encoding
from checker.properties import triton_conversion as tc

ROWS = lower(parse_encoding("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
                            "order = [1, 0]}>"), [32, 32])
COLS = lower(parse_encoding("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], "
                            "order = [0, 1]}>"), [32, 32])


def test_a_transpose_across_warps_goes_through_shared_memory():
    comp = tc.minimal_conversion(ROWS, COLS)
    assert comp.in_dims == ("register", "lane", "warp") and not tc.is_trivial(comp)
    assert tc.classify(ROWS, COLS, comp) == ("shared_memory", None)
    assert tc.lowering(comp, "shared_memory") == "shared_memory"


def test_the_same_layout_needs_nothing():
    comp = tc.minimal_conversion(ROWS, ROWS)
    assert comp.in_dims == () and tc.is_trivial(comp)
    assert tc.lowering(comp, tc.classify(ROWS, ROWS, comp)[0]) == "none"
