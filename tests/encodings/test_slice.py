"""Slice, linear and shared_linear layouts: bases by value and the verifier rules."""

import pytest

from checker.encodings import lower
from checker.encodings.blocked import BlockedEncoding
from checker.encodings.linear import LinearEncoding
from checker.encodings.shared_linear import SharedLinearEncoding
from checker.encodings.slice import SliceEncoding
from checker.errors import EncodingError

PARENT = BlockedEncoding((1, 4), (4, 8), (4, 1), (1, 0))


def test_slice_dim0_keeps_zero_lane_bases():
    L = lower(SliceEncoding(0, PARENT), [32])
    assert L.to_dict() == {"bases": {"register": [[1], [2]], "lane": [[4], [8], [16], [0], [0]],
                                     "warp": [[0], [0]], "block": []}, "out_dims": {"dim0": 32}}


def test_slice_dim1_and_nested():
    L = lower(SliceEncoding(1, PARENT), [64])
    assert L.to_dict()["bases"] == {"register": [[16], [32]], "lane": [[0], [0], [0], [1], [2]],
                                    "warp": [[4], [8]], "block": []}
    rank3 = BlockedEncoding((1, 1, 2), (2, 4, 4), (2, 1, 2), (2, 1, 0))
    # parent at [4, 1, 8]: dim1's lane bases become 0, the dim2 warp basis (8) falls outside and broadcasts
    assert lower(SliceEncoding(1, rank3), [4, 8]).to_dict()["bases"] == {
        "register": [[0, 1]], "lane": [[0, 2], [0, 4], [0, 0], [0, 0], [1, 0]], "warp": [[0, 0], [2, 0]], "block": []}
    nested = SliceEncoding(0, SliceEncoding(1, rank3))
    assert lower(nested, [8]).to_dict() == {
        "bases": {"register": [[1]], "lane": [[2], [4], [0], [0], [0]], "warp": [[0], [0]], "block": []},
        "out_dims": {"dim0": 8}}


def test_slice_dim_out_of_range():
    with pytest.raises(EncodingError, match="slice dim=2 must be less than the parent rank=2") as info:
        lower(SliceEncoding(2, PARENT), [16])
    assert info.value.field == "dim"


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


def test_shared_linear_uses_its_bases_and_checks_the_shape():
    enc = SharedLinearEncoding(((0, 1), (0, 2), (1, 1), (2, 2)))
    L = lower(enc, [4, 4])
    assert L.to_dict() == {"bases": {"offset": [[0, 1], [0, 2], [1, 1], [2, 2]], "block": []},
                           "out_dims": {"dim0": 4, "dim1": 4}}
    with pytest.raises(EncodingError, match="mismatch in expected shape for dimension 0"):
        lower(enc, [8, 4])
    with pytest.raises(EncodingError, match="invertible"):
        lower(SharedLinearEncoding(((0, 1), (0, 1))), [1, 2])
    with pytest.raises(EncodingError, match="alignment"):
        lower(SharedLinearEncoding(((0, 1),), (), 12), [1, 2])
