"""Linear layouts: bases by value and the verifier rules."""

import pytest

from checker.encodings import lower
from checker.encodings.linear import LinearEncoding
from checker.errors import EncodingError


def test_linear_refits_to_a_larger_and_a_smaller_shape():
    enc = LinearEncoding(((0, 1),), ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)), ((8, 0),))
    assert lower(enc, [16, 8]).to_dict()["bases"]["register"] == [[0, 1]]
    # larger: repetitions along the rep order (dim1 first: the registers move along dim1)
    assert lower(enc, [32, 16]).to_dict()["bases"]["register"] == [[0, 1], [0, 8], [16, 0]]
    # smaller: out-of-shape registers are dropped, lanes/warps broadcast
    small = lower(enc, [4, 8]).to_dict()["bases"]
    assert small["lane"] == [[0, 2], [0, 4], [1, 0], [2, 0], [0, 0]] and small["warp"] == [[0, 0]]


def test_linear_must_be_a_permutation_matrix():
    swizzled = LinearEncoding(((0, 1), (0, 1)), ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0)), ((8, 0),))
    with pytest.raises(EncodingError, match="permutation matrix"):
        lower(swizzled, [16, 8])
    xor = LinearEncoding(((4, 0),), ((0, 8), (8, 0), (0, 1), (0, 2), (1, 0)), ((0, 5), (2, 0)))
    with pytest.raises(EncodingError, match="permutation matrix"):
        lower(xor, [16, 16])
