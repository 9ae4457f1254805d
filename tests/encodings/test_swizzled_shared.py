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


@pytest.mark.parametrize("enc, field, message", [
    (SwizzledSharedEncoding(1, 0, 4, (1, 0)), "perPhase", "must be a positive integer (Triton's lowering divides by it), got 0"),
    (SwizzledSharedEncoding(1, 1, 0, (1, 0)), "maxPhase", "must be a positive integer (Triton's lowering divides by it), got 0"),
    (SwizzledSharedEncoding(-1, 1, 1, (1, 0)), "vec", "expected an unsigned integer value in vec, got -1"),
    (SwizzledSharedEncoding(1, -2, 1, (1, 0)), "perPhase", "expected an unsigned integer value in perPhase, got -2"),
    (SwizzledSharedEncoding(1, 1, -1, (1, 0)), "maxPhase", "expected an unsigned integer value in maxPhase, got -1"),
    (SwizzledSharedEncoding(1, 1, 1, (0, 0)), "order", None),
])
def test_rejected(enc, field, message):
    """Negative values: Triton's parser message; perPhase / maxPhase 0 pass Triton's verifier but crash its
    lowering (SIGFPE), so they are refused."""
    with pytest.raises(EncodingError) as info:
        lower(enc, [16, 16])
    assert info.value.field == field
    if message is not None:
        assert info.value.message == f"swizzled_shared: {message}"


# Triton 3.9's to_linear_layout (Gluon builder) at 16x16, order [1, 0]: vec = 0 is the identity, and
# non-powers of two are accepted and computed by the same formula (157 random cases, ranks 1-3, agree).
@pytest.mark.parametrize("text, offset", [
    ("#ttg.swizzled_shared<{vec = 0, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]),
    ("#ttg.swizzled_shared<{vec = 0, perPhase = 2, maxPhase = 3, order = [1, 0]}>",
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]),
    ("#ttg.swizzled_shared<{vec = 3, perPhase = 3, maxPhase = 3, order = [1, 0]}>",
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 3], [8, 6]]),
    ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 3, order = [1, 0]}>",
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 2], [2, 4], [4, 2], [8, 4]]),
])
def test_what_triton_accepts_it_builds(text, offset):
    from checker import parse_encoding
    L = lower(parse_encoding(text), [16, 16])
    assert L.to_dict()["bases"] == {"offset": offset, "block": []}


def test_rank_mismatch_rejected():
    with pytest.raises(EncodingError, match="rank 3 but the encoding has rank 2"):
        lower(SwizzledSharedEncoding(2, 1, 4, (1, 0)), [16, 16, 2])
