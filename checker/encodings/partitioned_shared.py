"""``#ttg.partitioned_shared`` (AMD gfx1250): a tensor cut along one dim into pieces kept in separate buffers.

With P = numPartitions, G = numGroups and d = partitionDim, the tensor is
cut along d into P * G logical pieces of shape[d] / (P * G) rows each;
piece j lives in partition (buffer) j mod P, at position j / P inside it.
Each piece is laid out by the inner ``partitionLayout`` at the piece shape:

    piece = partitionLayout lowered at shape with shape[d] := shape[d] / (P * G)
    full  = piece * id(P, partition, d) * id(G, offset, d)

so `full` maps (offset, block, partition) -> dims: the partition bits pick
the piece within a group, the top offset bits the group. Triton 3.9 hands
out only the (offset, block) part with the full shape's out sizes
(`to_linear_layout`): a layout that is not surjective, the elements of
partitions other than 0 being unreachable from it. `full_linear_layout`
keeps the partition in-dim.

Verifier: P a power of two >= 2, G a power of two >= 1, d < rank of the
inner layout; shape[d] must hold P * G pieces. Triton has no LinearLayout
for a partitioned layout wrapping a padded one (``toLinearLayout`` aborts,
while its LLVM lowering addresses each partition through the padded
layout): not modelled (`NotModelled`), so a TTGIR check of one is skipped
with that reason. The alignment is the inner layout's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from ..errors import EncodingError, NotModelled
from ..layout import LinearLayout, is_power_of_two, standard_out_dims
from .base import BLOCK, ENCODING, INT, OFFSET, Bases, SharedEncoding, param
from .lowering import lower

PARTITION = "partition"


@dataclass(frozen=True)
class PartitionedSharedEncoding(SharedEncoding):
    kind = "partitioned_shared"

    num_partitions: int = param("numPartitions", INT)
    num_groups: int = param("numGroups", INT)
    partition_dim: int = param("partitionDim", INT)
    partition_layout: SharedEncoding = param("partitionLayout", ENCODING)

    @property
    def rank(self) -> int:
        return self.partition_layout.rank

    @property
    def cga_layout(self) -> Bases:
        cga: Bases = getattr(self.partition_layout, "cga_layout", ())
        return cga

    def alignment(self) -> int:
        return self.partition_layout.alignment()

    def validate(self) -> None:
        if not isinstance(self.partition_layout, SharedEncoding):
            kind = getattr(self.partition_layout, "kind", type(self.partition_layout).__name__)
            raise self.fail("partitionLayout", f"the partition layout must be a shared encoding, got {kind}")
        self.partition_layout.validate()
        if self.num_partitions < 2 or not is_power_of_two(self.num_partitions):
            raise self.fail("numPartitions", f"numPartitions must be a power of 2 and at least 2, "
                                             f"got {self.num_partitions}")
        if not is_power_of_two(self.num_groups):
            raise self.fail("numGroups", f"numGroups must be a power of 2 and greater than 0, got {self.num_groups}")
        if not 0 <= self.partition_dim < self.rank:
            raise self.fail("partitionDim", f"partitionDim ({self.partition_dim}) must be less than the layout "
                                            f"rank ({self.rank})")

    def piece_shape(self, shape: Sequence[int]) -> list[int]:
        pieces = self.num_partitions * self.num_groups
        if shape[self.partition_dim] < pieces:
            raise EncodingError(f"partitioned_shared: dimension {self.partition_dim} of the shape {list(shape)} "
                                f"cannot be cut into {pieces} pieces (numPartitions * numGroups)", field="shape")
        out = list(shape)
        out[self.partition_dim] //= pieces
        return out

    def full_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """(offset, block, partition) -> dims; see the module docstring."""
        if self.partition_layout.kind == "padded_shared":
            raise NotModelled("partitioned_shared: Triton has no LinearLayout for a partitioned layout wrapping "
                              "a padded layout (toLinearLayout aborts); not modelled", field="partitionLayout")
        # a padded_shared partition is refused above: the piece is a LinearLayout
        piece = cast(LinearLayout, lower(self.partition_layout, self.piece_shape(shape)))
        d = standard_out_dims(self.rank)[self.partition_dim]
        return (piece * LinearLayout.identity_1d(self.num_partitions, PARTITION, d)
                * LinearLayout.identity_1d(self.num_groups, OFFSET, d))

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        full = self.full_linear_layout(shape)
        return full.sublayout([OFFSET, BLOCK], full.out_dims)
