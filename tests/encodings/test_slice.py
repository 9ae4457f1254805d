"""Slice layouts: bases by value and the verifier rules."""

import pytest

from checker.encodings import lower
from checker.encodings.blocked import BlockedEncoding
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
