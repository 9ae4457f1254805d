"""Swizzled shared layouts: the five worked examples of TritonGPUAttrDefs.td, as exact offset tables."""

import pytest

from checker.encodings import lower
from checker.encodings.swizzled_shared import SwizzledSharedEncoding
from checker.errors import EncodingError

from ..tables import stored_elements


@pytest.mark.parametrize("vec, per_phase, max_phase, shape, table", [
    (1, 1, 4, [4, 4], [[0, 1, 2, 3], [5, 4, 7, 6], [10, 11, 8, 9], [15, 14, 13, 12]]),
    (1, 2, 4, [4, 4], [[0, 1, 2, 3], [4, 5, 6, 7], [9, 8, 11, 10], [13, 12, 15, 14]]),
    (1, 1, 2, [8, 4], [[0, 1, 2, 3], [5, 4, 7, 6], [8, 9, 10, 11], [13, 12, 15, 14],
                       [16, 17, 18, 19], [21, 20, 23, 22], [24, 25, 26, 27], [29, 28, 31, 30]]),
    (1, 2, 2, [8, 4], [[0, 1, 2, 3], [4, 5, 6, 7], [9, 8, 11, 10], [13, 12, 15, 14],
                       [16, 17, 18, 19], [20, 21, 22, 23], [25, 24, 27, 26], [29, 28, 31, 30]]),
    (2, 1, 4, [4, 8], [[0, 1, 2, 3, 4, 5, 6, 7], [10, 11, 8, 9, 14, 15, 12, 13],
                       [20, 21, 22, 23, 16, 17, 18, 19], [30, 31, 28, 29, 26, 27, 24, 25]]),
], ids=["ex1-basic", "ex2-per-phase", "ex3-max-phase", "ex4-both", "ex5-vec"])
def test_td_examples(vec, per_phase, max_phase, shape, table):
    L = lower(SwizzledSharedEncoding(vec, per_phase, max_phase, (1, 0)), shape)
    assert stored_elements(L) == [e for row in table for e in row]
    assert L.is_invertible()


def test_example_5_formula():
    L = lower(SwizzledSharedEncoding(2, 1, 4, (1, 0)), [4, 8])
    flat = stored_elements(L)
    for r in range(4):
        for c in range(8):
            assert flat[r * 8 + c] == r * 8 + ((c // 2) ^ r) * 2 + c % 2


def test_rank3_and_column_major():
    L = lower(SwizzledSharedEncoding(2, 1, 4, (0, 1, 2)), [8, 4, 2])
    assert L.to_dict()["bases"]["offset"] == [[1, 0, 0], [2, 0, 0], [4, 0, 0], [2, 1, 0], [4, 2, 0], [0, 0, 1]]


@pytest.mark.parametrize("enc, field", [
    (SwizzledSharedEncoding(1, 0, 4, (1, 0)), "perPhase"),
    (SwizzledSharedEncoding(1, 1, 0, (1, 0)), "maxPhase"),
    (SwizzledSharedEncoding(0, 1, 1, (1, 0)), "vec"),
    (SwizzledSharedEncoding(1, 1, 1, (0, 0)), "order"),
])
def test_rejected(enc, field):
    with pytest.raises(EncodingError) as info:
        lower(enc, [16, 16])
    assert info.value.field == field


def test_rank_mismatch_rejected():
    with pytest.raises(EncodingError, match="rank 3 but the encoding has rank 2"):
        lower(SwizzledSharedEncoding(2, 1, 4, (1, 0)), [16, 16, 2])
