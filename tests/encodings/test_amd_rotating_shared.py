"""AMD rotating shared layouts: the three worked examples of TritonGPUAttrDefs.td as exact offset tables,
the formula, and the two conformance cases (Triton recorded no LinearLayout for this family)."""

import itertools

import pytest

from checker.encodings import lower
from checker.encodings.amd_rotating_shared import AmdRotatingSharedEncoding
from checker.errors import EncodingError
from checker.syntax.gluon import from_gluon

from ..conftest import load_jsonl
from ..tables import stored_elements


@pytest.mark.parametrize("per_phase, max_phase, table", [
    (1, 2, [[0, 1, 2, 3], [5, 4, 7, 6], [9, 8, 11, 10], [12, 13, 14, 15],
            [16, 17, 18, 19], [21, 20, 23, 22], [25, 24, 27, 26], [28, 29, 30, 31]]),
    (2, 2, [[0, 1, 2, 3], [4, 5, 6, 7], [9, 8, 11, 10], [13, 12, 15, 14],
            [17, 16, 19, 18], [21, 20, 23, 22], [24, 25, 26, 27], [28, 29, 30, 31]]),
    (1, 4, [[0, 1, 2, 3], [5, 4, 7, 6], [10, 11, 8, 9], [15, 14, 13, 12],
            [17, 16, 19, 18], [20, 21, 22, 23], [27, 26, 25, 24], [30, 31, 28, 29]]),
], ids=["per1-max2", "per2-max2", "per1-max4"])
def test_td_examples(per_phase, max_phase, table):
    """Offset row * 4 + col holds the element numbered in the table (vec = 1, [8, 4], order [1, 0])."""
    L = lower(AmdRotatingSharedEncoding(1, per_phase, max_phase, (1, 0)), [8, 4])
    assert stored_elements(L) == [e for row in table for e in row]
    assert L.is_invertible()


@pytest.mark.parametrize("vec, per_phase, max_phase, order, shape", [
    (2, 1, 4, (1, 0), [32, 16]), (4, 2, 4, (1, 0), [64, 32]), (1, 1, 8, (0, 1), [16, 32]),
    (8, 1, 16, (1, 0), [128, 64]), (2, 4, 2, (0, 1), [32, 64]),
])
def test_formula(vec, per_phase, max_phase, order, shape):
    """Memory (row, col) holds element (row, col XOR vec * (phase XOR block)) (mod the row length)."""
    enc = AmdRotatingSharedEncoding(vec, per_phase, max_phase, order)
    L = lower(enc, shape)
    num_rows, num_cols = shape[order[1]], shape[order[0]]
    for row, col in itertools.product(range(num_rows), range(num_cols)):
        phase = (row // per_phase) % max_phase
        block = (row // (per_phase * max_phase)) % max_phase
        coord = [0, 0]
        coord[order[1]], coord[order[0]] = row, col ^ ((vec * (phase ^ block)) % num_cols)
        assert tuple(L.apply({"offset": row * num_cols + col, "block": 0}).values()) == tuple(coord)


def test_differs_from_swizzled_after_one_block():
    """Rows 0 .. perPhase*maxPhase - 1 are swizzled as in swizzled_shared; the next block is rotated."""
    L = lower(AmdRotatingSharedEncoding(1, 1, 4, (1, 0)), [8, 4])
    assert L.to_dict()["bases"]["offset"] == [[0, 1], [0, 2], [1, 1], [2, 2], [4, 1]]


CASES = [c for c in load_jsonl("lowering.jsonl") if c["family"] == "amd_rotating_shared"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_conformance_cases_lower(case):
    """Triton parses these texts but exposes no LinearLayout: check the text's fields and our bases."""
    enc = from_gluon(case["layout"])
    p = case["layout"]["params"]
    assert f"vec = {p['vec']}, perPhase = {p['per_phase']}, maxPhase = {p['max_phase']}" in case["mlir_attr"]
    L = lower(enc, case["shape"])
    expected = {
        "low-amd_rotating_shared-a6d06ce9017d": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 2], [2, 4],
                                                 [4, 8], [8, 16], [16, 2], [32, 4], [64, 8]],
        "low-amd_rotating_shared-a3554b27745a": [[1], [2], [4], [8], [16], [32]],
    }
    assert L.to_dict()["bases"]["offset"] == expected[case["id"]]


@pytest.mark.parametrize("enc, field", [
    (AmdRotatingSharedEncoding(1, 0, 4, (1, 0)), "perPhase"),
    (AmdRotatingSharedEncoding(1, 1, 0, (1, 0)), "maxPhase"),
    (AmdRotatingSharedEncoding(1, 1, 4, (1, 1)), "order"),
])
def test_rejected(enc, field):
    with pytest.raises(EncodingError) as info:
        lower(enc, [16, 16])
    assert info.value.field == field
