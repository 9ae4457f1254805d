"""view_consistent: a memdesc view addresses the buffer it was taken from (checker.properties.views)."""

import dataclasses

import pytest

from checker import lower, parse_encoding
from checker.errors import CheckerError
from checker.properties.views import reshaped, transposed, view_consistent

ROW = parse_encoding("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>")
COL = parse_encoding("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>")
NVMMA = parse_encoding("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>")
NVMMA_T = parse_encoding("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>")


def test_transposing_a_swizzled_buffer_swaps_its_order():
    r = view_consistent(lower(ROW, [64, 16]), lower(COL, [16, 64]), "trans", order=[1, 0])
    assert r.status == "holds" and set(r.verdicts) == {"f2", "z3"}
    assert r.details == {"kind": "trans", "order": [1, 0], "source_shape": [64, 16], "view_shape": [16, 64]}


def test_transposing_nvmma_flips_transposed():
    assert view_consistent(lower(NVMMA, [64, 64]), lower(NVMMA_T, [64, 64]), "trans", order=[1, 0]).holds


def test_a_transpose_that_keeps_the_order_is_caught_with_a_replayed_witness():
    r = view_consistent(lower(ROW, [64, 16]), lower(ROW, [16, 64]), "trans", order=[1, 0])
    assert r.status == "fails"
    cx = r.counterexample
    assert cx.kind == "mismatch" and cx.replay()
    # offset 1 holds (0, 1) in the row-major view, but the buffer's element (0, 1) read transposed is (1, 0)
    assert cx.data["index"] == {"offset": 1, "block": 0}
    assert cx.data["images"] == [{"dim0": 0, "dim1": 1}, {"dim0": 1, "dim1": 0}]


def test_transposed_moves_every_basis():
    T = transposed(lower(ROW, [64, 16]), [1, 0])
    assert T.out_dim_sizes == (("dim0", 16), ("dim1", 64))
    assert T.in_bases("offset")[:4] == ((1, 0), (2, 0), (4, 0), (8, 0))


def test_reshape_keeps_the_row_major_index():
    flat = parse_encoding("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>")
    S = lower(flat, [4, 8])
    R = reshaped(S, [2, 16])
    # offset i of a row-major 4x8 buffer holds (i // 8, i % 8); re-read as 2x16 it is (i // 16, i % 16)
    assert R.in_bases("offset") == ((0, 1), (0, 2), (0, 4), (0, 8), (1, 0))
    assert view_consistent(S, lower(flat, [2, 16]), "reshape").holds
    assert view_consistent(S, lower(dataclasses.replace(flat, order=(0, 1)), [2, 16]),
                           "reshape").fails


def test_kind_and_order_are_validated():
    S = lower(ROW, [64, 16])
    with pytest.raises(CheckerError, match="kind"):
        view_consistent(S, S, "permute")
    with pytest.raises(CheckerError, match="permutation"):
        view_consistent(S, S, "trans", order=[0, 0])
