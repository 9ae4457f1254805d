"""Partitioned shared layouts (gfx1250): Triton's non-surjective lowering, the piece placement of the
TritonGPUAttrDefs.td example, and the verifier."""

import pytest

from checker.encodings import lower
from checker.encodings.nvmma_shared import NvmmaSharedEncoding
from checker.encodings.padded_shared import PaddedSharedEncoding
from checker.encodings.partitioned_shared import PartitionedSharedEncoding
from checker.encodings.swizzled_shared import SwizzledSharedEncoding
from checker.errors import EncodingError
from checker.syntax.gluon import from_gluon

SWIZZLED = SwizzledSharedEncoding(4, 1, 8, (1, 0))


def test_not_surjective_like_triton():
    """[128, 32], 2 partitions along dim 0: the offsets reach rows 0-63 only (Gluon's shape_from_bases
    [64, 32]); the partition bit that selects rows 64-127 is not an in-dim of Triton's result."""
    L = lower(PartitionedSharedEncoding(2, 1, 0, SWIZZLED), [128, 32])
    assert L.in_dims == ("offset", "block")
    assert L.out_dim_sizes == (("dim0", 128), ("dim1", 32))
    assert not L.is_surjective()
    assert max(b[0] for b in L.in_bases("offset")) == 32
    full = PartitionedSharedEncoding(2, 1, 0, SWIZZLED).full_linear_layout([128, 32])
    assert full.in_dims == ("offset", "block", "partition")
    assert full.in_bases("partition") == ((64, 0),) and full.is_invertible()


def test_td_example_piece_placement():
    """numPartitions 2, numGroups 4, dim 0, [128, 32]: pieces of 16 rows; buffer p holds pieces p, p+2, p+4,
    p+6 one after the other (group g at offsets g * 512 ..)."""
    enc = PartitionedSharedEncoding(2, 4, 0, SwizzledSharedEncoding(1, 1, 1, (1, 0)))
    full = enc.full_linear_layout([128, 32])
    for p in range(2):
        pieces = [full.apply({"offset": g * 512, "block": 0, "partition": p})["dim0"] // 16 for g in range(4)]
        assert pieces == [p, p + 2, p + 4, p + 6]


def test_alignment_and_cga_come_from_the_inner_layout():
    inner = NvmmaSharedEncoding(128, False, 16)
    enc = PartitionedSharedEncoding(2, 1, 1, inner)
    assert enc.alignment() == inner.alignment() == 1024
    assert PartitionedSharedEncoding(2, 1, 0, SwizzledSharedEncoding(4, 1, 8, (1, 0), ((1, 0),))).cga_layout \
        == ((1, 0),)


@pytest.mark.parametrize("enc, shape, field, message", [
    (PartitionedSharedEncoding(1, 1, 0, SWIZZLED), [64, 64], "numPartitions", "at least 2"),
    (PartitionedSharedEncoding(3, 1, 0, SWIZZLED), [64, 64], "numPartitions", "power of 2"),
    (PartitionedSharedEncoding(2, 0, 0, SWIZZLED), [64, 64], "numGroups", "power of 2"),
    (PartitionedSharedEncoding(2, 1, 2, SWIZZLED), [64, 64], "partitionDim", r"partitionDim \(2\) must be less"),
    (PartitionedSharedEncoding(4, 4, 1, SWIZZLED), [64, 8], "shape", "cannot be cut into 16 pieces"),
    (PartitionedSharedEncoding(2, 1, 0, PaddedSharedEncoding((32,), (4,), ((0, 1), (1, 0)))), [4, 2],
     "partitionLayout", "wrapping a padded layout"),
])
def test_rejected(enc, shape, field, message):
    with pytest.raises(EncodingError, match=message) as info:
        lower(enc, shape)
    assert info.value.field == field


@pytest.mark.parametrize("params, field", [
    ({"num_partitions": 3}, "num_partitions"), ({"num_groups": 0}, "num_groups"),
    ({"partition_dim": -1}, "partition_dim"),
    ({"partition_layout": {"class": "BlockedLayout", "params": {
        "size_per_thread": [1, 1], "threads_per_warp": [4, 8], "warps_per_cta": [1, 1], "order": [1, 0]}}},
     "partition_layout"),
])
def test_gluon_asserts(params, field):
    spec = {"class": "PartitionedSharedLayout", "params": {
        "num_partitions": 2, "num_groups": 1, "partition_dim": 0,
        "partition_layout": {"class": "SwizzledSharedLayout", "params": {"vec": 4, "per_phase": 1, "max_phase": 8,
                                                                         "order": [1, 0]}}, **params}}
    with pytest.raises(EncodingError) as info:
        from_gluon(spec)
    assert info.value.field == field
