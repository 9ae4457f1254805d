"""fits (checker.properties.fits): a shared layout's buffer fits a capacity, its alignment and padding
counted; witnesses in bytes."""

import pytest

from checker.errors import CheckerError, LayoutError
from checker.layout import LinearLayout
from checker.padded import PaddedLayout
from checker.properties.fits import fits
from checker.properties.invertible import invertible

from .conftest import SWIZZLED


def test_fits_exactly_and_one_byte_short():
    r = fits(SWIZZLED, 16, 256)
    assert r.holds and r.details["size_bytes"] == 256 and r.details["end_bytes"] == 256
    r = fits(SWIZZLED, 16, 255)
    assert r.counterexample.to_dict() == {"kind": "out_of_bounds", "offset": 127, "slot": 127,
                                          # col 7 XOR row 7
                                          "element": {"dim0": 15, "dim1": 0}, "bit_range": [2032, 2048],
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


def test_fits_failure_speaks_in_bytes():
    from checker import parse_encoding, prove
    enc = parse_encoding("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>")
    r = prove.fits(enc, 32, 65536, shape=[256, 256])
    assert r.status == "fails" and r.explanation == (
        "the buffer needs 262144 bytes (65536 slots of 32 bits from byte 0), past the 65536-byte capacity; "
        "the first element past it is offset 16384 (slot 16384, element (dim0=64, dim1=0))")
    assert r.counterexample.data["bit_range"] == [524288, 524320]
