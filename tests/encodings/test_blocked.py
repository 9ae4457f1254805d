"""Blocked layouts: the worked examples of TritonGPUAttrDefs.td as exact tables, and the verifier rules."""

import pytest

from checker.encodings import lower
from checker.encodings.blocked import BlockedEncoding
from checker.encodings.cga import cga_bases_from_split_params
from checker.errors import EncodingError

from ..tables import owners, thread_grid

SEED = BlockedEncoding((2, 2), (8, 4), (1, 2), (1, 0))


def expected_16x16():
    """Example 1 of the td: thread t owns a 2x2 tile; warp 1 (threads 32..63) the right half."""
    grid = []
    for r in range(16):
        row = []
        for c in range(16):
            lane = (r // 2) * 4 + (c % 8) // 2
            row.append(lane + 32 * (c // 8))
        grid.append(row)
    return grid


def test_td_example_1_16x16():
    L = lower(SEED, [16, 16])
    assert L.to_dict()["bases"] == {"register": [[0, 1], [1, 0]], "lane": [[0, 2], [0, 4], [2, 0], [4, 0], [8, 0]],
                                    "warp": [[0, 8]], "block": []}
    assert thread_grid(L) == expected_16x16()
    # row 0 of the td's table, literally
    assert thread_grid(L)[0] == [0, 0, 1, 1, 2, 2, 3, 3, 32, 32, 33, 33, 34, 34, 35, 35]
    assert owners(L)[(0, 1)] == [(0, 0, 1)]


def test_td_example_2_32x32_wraps_with_registers():
    L = lower(SEED, [32, 32])
    small = expected_16x16()
    assert thread_grid(L) == [[small[r % 16][c % 16] for c in range(32)] for r in range(32)]
    # the repetitions are register bases appended along order[0] (dim1) first
    assert L.to_dict()["bases"]["register"] == [[0, 1], [1, 0], [0, 16], [16, 0]]
    assert owners(L)[(16, 16)] == [(0, 0, 12)]


def test_td_example_3_four_ctas():
    cga = cga_bases_from_split_params([2, 2], [2, 2], [1, 0])
    assert cga == ((0, 1), (1, 0))
    L = lower(BlockedEncoding((2, 2), (8, 4), (1, 2), (1, 0), cga), [32, 32])
    small = expected_16x16()
    own = owners(L)
    # CTA b = (b0, b1) with b0 along dim1 owns the 16x16 quadrant (16*b1, 16*b0), with the same thread pattern
    for block, (r0, c0) in enumerate([(0, 0), (0, 16), (16, 0), (16, 16)]):
        for r in range(16):
            for c in range(16):
                assert own[(r0 + r, c0 + c)][0][:2] == (block, small[r][c])


def test_smaller_shape_broadcasts_lanes_and_drops_registers():
    L = lower(SEED, [8, 8])
    assert L.to_dict()["bases"] == {"register": [[0, 1], [1, 0]],
                                    "lane": [[0, 2], [0, 4], [2, 0], [4, 0], [0, 0]], "warp": [[0, 0]], "block": []}
    L = lower(BlockedEncoding((4, 4), (8, 4), (1, 1), (1, 0)), [8, 2])
    assert L.to_dict()["bases"]["register"] == [[0, 1], [1, 0], [2, 0]]


@pytest.mark.parametrize("enc, field, message", [
    (BlockedEncoding((1, 1), (6, 4), (1, 2), (1, 0)), "threadsPerWarp", "every entry must be a power of two"),
    (BlockedEncoding((0, 1), (8, 4), (1, 2), (1, 0)), "sizePerThread", "every entry must be a power of two"),
    (BlockedEncoding((1, 1), (8, 4), (1, 2), (1, 1)), "order", "must be a permutation of 0..1"),
    (BlockedEncoding((1,), (8, 4), (1, 2), (1, 0)), "sizePerThread", "has 1 entries but the encoding has rank 2"),
    (BlockedEncoding((1, 1), (8, 4), (1, 2), (1, 0), ((1, 0), (1, 0))), "CGALayout", "permutation matrix"),
])
def test_verifier_rules(enc, field, message):
    with pytest.raises(EncodingError, match=message) as info:
        lower(enc, [16, 16])
    assert info.value.field == field


def test_shape_rules():
    with pytest.raises(EncodingError, match="power of two"):
        lower(SEED, [12, 16])
    with pytest.raises(EncodingError, match="rank 1 but the encoding has rank 2"):
        lower(SEED, [16])
