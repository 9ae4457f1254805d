"""checker.synthesis: the search's shortcuts give what the plain forms give (the swizzled layouts from their closed
form, the inverse whose basis waits, the covering test's shortcut; a construction's replayed
attempt is in test_synthesis_speed_identity.py)."""

import itertools

import pytest

import checker
from checker import f2
from checker import synthesis as sy
from checker.encodings import lower
from checker.encodings.swizzled_shared import SwizzledSharedEncoding
from checker.errors import CheckerError
from checker.hardware import resolve

P = checker.parse_encoding


def _plain_swizzled(shape):
    """Every distinct swizzled layout of the shape, each lowered by `lower` (the search's definition)."""
    rank = len(shape)
    seen = set()
    orders = list(itertools.permutations(range(rank))) if rank > 1 else [(0,)]
    for order in orders:
        cols = shape[order[0]] if rank > 1 else 1
        rows = shape[order[1]] if rank > 1 else 1
        for vec in [1 << i for i in range(cols.bit_length())]:
            for mp in [1 << i for i in range(max(1, cols // vec).bit_length())]:
                for pp in [1 << i for i in range(rows.bit_length())]:
                    if mp == 1 and (vec, pp) != (1, 1):
                        continue
                    enc = SwizzledSharedEncoding(vec, pp, mp, tuple(order))
                    try:
                        L = lower(enc, list(shape))
                    except CheckerError:
                        continue
                    if L not in seen:
                        seen.add(L)
                        yield enc, L


SHAPES = ([(s,) for s in (1, 2, 8, 64)] + [(a, b) for a in (1, 2, 4, 8, 32, 128, 256) for b in (1, 2, 4, 16, 64, 128)]
          + [(a, b, c) for a in (1, 2, 8) for b in (1, 4, 16) for c in (1, 2, 32)] + [(2, 4, 8, 2), (3, 4), (6, 8)])


@pytest.mark.parametrize("shape", SHAPES)
def test_swizzled_entries_are_the_lowered_layouts(shape):
    """Same encodings, same layouts, same order; the columns are the layout's, independent where vouched."""
    entries = sy._swizzled_entries(shape)
    assert [e.get() for e in entries] == list(_plain_swizzled(shape))
    assert list(sy.swizzled_candidates(shape)) == list(_plain_swizzled(shape))
    for entry in entries:
        enc, L = entry.get()
        assert entry.columns == L.columns and entry.sizes == L.out_dim_sizes
        if entry.independent:
            assert f2.rank(entry.columns) == len(entry.columns) == L.total_out_size_log2


def _sides(hw, bits):
    shape = [64, 64]
    store = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    load = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [16, 4], warpsPerCTA = [2, 2], order = [0, 1]}>"
    Rs, Rl = sy._std(lower(P(store), shape), 2, "store"), sy._std(lower(P(load), shape), 2, "load")
    H = resolve(hw)
    return [sy.VectorFigures(Rs, bits, "store", "auto", H), sy.VectorFigures(Rl, bits, "load", "auto", H)]


@pytest.mark.parametrize("hw", ["gfx942", "gfx950"])
@pytest.mark.parametrize("bits", [8, 16, 64])
def test_inverse_of_vouched_columns_is_the_layouts(hw, bits):
    """`_OffsetInverse.of_columns` with the basis put off gives `of`'s least bounds and figures."""
    compared = 0
    for entry in sy._swizzled_entries((64, 64)):
        L = entry.get()[1]
        eager = sy._OffsetInverse.of(L, _sides(hw, bits))
        lazy = sy._OffsetInverse.of_columns(entry.columns, entry.sizes, _sides(hw, bits), entry.independent)
        assert (eager is None) == (lazy is None)
        if eager is not None:
            assert lazy.least() == eager.least() and lazy.bounds() == eager.bounds()
            compared += 1
    assert compared > 0


def test_covered_when_one_space_is_everything():
    """`_covered`'s shortcut: a mask no coordinate's checks meet is all of F2^m."""
    unit = [0b0110, 0b0011, 0b0101]
    assert sy._covered(unit, [0b1000])
    assert sy._covered(unit, [0b0001, 0b1000])
    assert not sy._covered(unit, [0b0001])
