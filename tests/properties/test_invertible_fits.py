import pytest

from checker.errors import CheckerError, LayoutError
from checker.layout import LinearLayout
from checker.properties import fits, invertible
from checker.padded import PaddedLayout

# 16x8 swizzled: offset -> (row, col), col XOR-ed with the row.
SWIZZLED = LinearLayout({"offset": [(0, 1), (0, 2), (0, 4), (1, 1), (2, 2), (4, 4), (8, 0)], "block": []},
                        [("dim0", 16), ("dim1", 8)])


def test_swizzled_is_invertible():
    r = invertible(SWIZZLED)
    assert r.holds and r.details["padded"] is False


def test_repeated_offset_basis_collides():
    S = LinearLayout({"offset": [(0, 1), (0, 2), (0, 4), (1, 1), (2, 2), (4, 4), (0, 4)]}, [("dim0", 16), ("dim1", 8)])
    r = invertible(S)
    assert r.counterexample.to_dict() == {"kind": "collision", "indices": [{"offset": 64}, {"offset": 4}],
                                          "coordinate": {"dim0": 0, "dim1": 4}}


def test_padded_layout():
    mem = PaddedLayout(SWIZZLED, (32,), (4,))
    assert [mem.phys(i) for i in (0, 31, 32, 127)] == [0, 31, 36, 139]
    assert mem.footprint() == 140  # Triton's getPaddedSize(128) = 128 + (128 >> 5) * 4 - 4
    assert invertible(mem).holds


def test_fits_exactly_and_one_byte_short():
    r = fits(SWIZZLED, 16, 256)
    assert r.holds and r.details["size_bytes"] == 256 and r.details["end_bytes"] == 256
    r = fits(SWIZZLED, 16, 255)
    assert r.counterexample.to_dict() == {"kind": "out_of_bounds", "offset": 127, "slot": 127,
                                          "element": {"dim0": 15, "dim1": 0}, "bit_range": [2032, 2048],  # col 7 XOR row 7
                                          "capacity_bits": 2040}


def test_alignment_moves_the_start():
    # a 1024-byte-aligned (128B swizzle) buffer after 100 bytes starts at byte 1024
    r = fits(SWIZZLED, 16, 1280, 1024, base_bytes=100)
    assert r.holds and r.details["start_bytes"] == 1024 and r.details["end_bytes"] == 1280
    r = fits(SWIZZLED, 16, 1279, 1024, base_bytes=100)
    assert r.fails and r.counterexample.data["offset"] == 127


def test_padding_counts_against_capacity():
    mem = PaddedLayout(SWIZZLED, (32,), (4,))
    assert fits(mem, 32, 140 * 4).holds
    r = fits(mem, 32, 140 * 4 - 1)
    assert r.counterexample.data["offset"] == 127 and r.counterexample.data["slot"] == 139
    r = fits(mem, 32, 100)
    assert r.counterexample.data["offset"] == 25  # slot 25 covers bytes 100..103, the first past 100
    assert r.verdicts["z3"].counterexample.replay()


def test_bad_arguments():
    with pytest.raises(CheckerError) as e:
        fits(SWIZZLED, 16, 256, 48)
    assert e.value.field == "alignment_bytes"
    with pytest.raises(CheckerError):
        fits(SWIZZLED, 0, 256)
    with pytest.raises(LayoutError):
        invertible(LinearLayout({"register": [(1,)]}, [("dim0", 2)]))
