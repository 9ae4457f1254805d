"""invertible (checker.properties.invertible): every element of a shared layout has exactly one offset;
padded layouts, declared holes (padding, fp4 padding, broadcast CTAs) and partitioned layouts."""

from checker.layout import LinearLayout
from checker.padded import PaddedLayout
from checker.properties.invertible import invertible

from .conftest import SWIZZLED


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


def test_padding_holes_are_reported_not_failed():
    from checker import parse_encoding, prove
    r = prove.invertible(parse_encoding("#ttg.padded_shared<[32:+4, 256:+8] {order = [1, 0], shape = [32, 32]}>"),
                         [32, 32])
    assert r.holds and r.details["padded"] is True
    # 4 slots after every 32 offsets, 8 more after every 256: 31 * 4 + 3 * 8 = 148 holes
    assert r.details["holes"] == {"slots": 148, "range_count": 31, "ranges": [
        [32, 36], [68, 72], [104, 108], [140, 144], [176, 180], [212, 216], [248, 252], [284, 296]]}


FP4 = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8, fp4Padded = true}>"


def test_fp4_padded_offsets_are_declared_holes():
    from checker import parse_encoding, prove
    from checker.encodings import lower
    enc = parse_encoding(FP4)
    L = lower(enc, [64, 128])
    # Triton's packing 8 * (v / 16) + v % 8 puts core-matrix column 8 on column 0: offset bit 3 is zero
    assert L.in_bases("offset")[:5] == ((0, 1), (0, 2), (0, 4), (0, 0), (0, 8))
    assert enc.padding_offset_bits() == (3,)
    r = prove.invertible(enc, [64, 128])
    assert r.holds and r.details["holes"] == {"offset_bits": [3], "offsets": 8192}
    # the bare LinearLayout carries no declaration: the zero basis is a collision, offsets 8 and 0
    bare = invertible(L)
    assert bare.counterexample.to_dict() == {"kind": "collision", "indices": [{"offset": 8, "block": 0},
                                                                              {"offset": 0, "block": 0}],
                                             "coordinate": {"dim0": 0, "dim1": 0}}
    # declaring a bit whose basis is not zero (offset bit 4) sets nothing aside: bit 3 still collides
    assert invertible(L, padding_offset_bits=(4,)).fails


def test_broadcast_ctas_are_invertible_per_cta():
    from checker import parse_encoding, prove
    enc = parse_encoding("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], "
                         "CGALayout = [[0, 0]]}>")
    r = prove.invertible(enc, [64, 64])
    assert r.holds and r.details["broadcast_ctas"] == {"block_bits": [0], "copies": 2}
    # a real collision inside one CTA is still found, in S's own numbering (block bit 0 dropped, then restored)
    S = LinearLayout({"offset": [(0, 1), (0, 2), (0, 1)], "block": [(0, 0), (1, 0)]}, [("dim0", 2), ("dim1", 4)])
    r = invertible(S)
    assert r.details["broadcast_ctas"] == {"block_bits": [0], "copies": 2}
    assert r.counterexample.to_dict() == {"kind": "collision", "indices": [{"offset": 4, "block": 0},
                                                                           {"offset": 1, "block": 0}],
                                          "coordinate": {"dim0": 0, "dim1": 1}}
    assert r.verdicts["z3"].counterexample.replay()


def test_a_partitioned_layout_is_invertible_with_its_partitions():
    """Triton's LinearLayout of a partitioned layout keeps partition 0 only (half of the 2048 elements);
    with the partition in-dim the buffer holds every element once."""
    from checker import lower, parse_encoding, prove
    enc = parse_encoding("#ttg.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0, "
                         "partitionLayout = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, "
                         "order = [1, 0]}>}>")
    r = prove.invertible(enc, [64, 32])
    assert r.status == "holds" and r.details["in_bits"] == 11
    assert lower(enc, [64, 32]).in_dim_size("offset") == 1024         # Triton's view: partition 0 only
    assert prove.invertible(lower(enc, [64, 32])).status == "fails"
