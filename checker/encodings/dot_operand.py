"""``#ttg.dot_op``: operand A (opIdx 0) or B (opIdx 1) of a dot, held in registers as its parent wants.

K is the last dim for A ([.., M, K]) and dim r-2 for B ([.., K, N]). The
lowering belongs to the parent:

    L = parent.dot_operand_layout(opIdx, kWidth, shape)

(NVIDIA MMA in nvidia_mma.py, blocked/FMA in blocked.py, AMD in amd_*.py).
Pieces the parents share:

- the operand's CGA is the parent's with every K component set to 0 (so K has
  size 1): the CTAs the parent spreads along K hold the same operand slice;
- broadcast_along_k(in, sizes, order, K) = prod over d in order (minor first) of
  zeros1D(sizes[d], in, d) if d == K else identity1D(sizes[d], in, d): the
  lanes or warps the parent spreads along K hold the same operand elements.

Verifier: opIdx in {0, 1}; the parent is a distributed encoding with a K dim
(rank >= 1 for A, >= 2 for B) that accepts (opIdx, kWidth) through its
``validate_dot_operand`` hook (slice and linear parents never do).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import EncodingError
from ..layout import LinearLayout, is_power_of_two, standard_out_dims
from .base import ENCODING, INT, REQUIRED, Bases, DistributedEncoding, param


def dot_operand_k_dim(op_idx: int, rank: int) -> int:
    return rank - 1 if op_idx == 0 else rank - 2


def require_k_width(k_width: int, parent: str) -> None:
    """The AMD parents' kWidth rule: given (non-zero) and a power of two (Triton aborts otherwise)."""
    if k_width == 0:
        raise EncodingError(f"dot_op: kWidth is mandatory for {parent} parent", field="kWidth")
    if not is_power_of_two(k_width):
        raise EncodingError(f"dot_op: kWidth must be a power of two for {parent} parent (Triton aborts "
                            f"otherwise), got {k_width}", field="kWidth")


def dot_operand_cga(parent_cga: Bases, op_idx: int, rank: int) -> Bases:
    """The parent's CGA bases with the K component zeroed."""
    k = dot_operand_k_dim(op_idx, rank)
    return tuple(tuple(0 if d == k else c for d, c in enumerate(b)) for b in parent_cga)


def broadcast_along_k(in_dim: str, sizes: Sequence[int], order: Sequence[int], k_dim: int) -> LinearLayout:
    """Identity along every dim but K, zeros along K, built in `order` (minor first)."""
    names = standard_out_dims(len(sizes))
    L = LinearLayout.empty()
    for d in order:
        piece = LinearLayout.zeros_1d if d == k_dim else LinearLayout.identity_1d
        L = L * piece(sizes[d], in_dim, names[d])
    return L


@dataclass(frozen=True)
class DotOperandEncoding(DistributedEncoding):
    kind = "dot_op"

    op_idx: int = param("opIdx", INT, gluon="operand_index")
    parent: DistributedEncoding = param("parent", ENCODING)
    k_width: int = param("kWidth", INT, default=0, elided=True, gluon_default=REQUIRED)

    @property
    def rank(self) -> int:
        return self.parent.rank

    @property
    def k_dim(self) -> int:
        return dot_operand_k_dim(self.op_idx, self.rank)

    @property
    def cga_layout(self) -> Bases:
        return dot_operand_cga(getattr(self.parent, "cga_layout", ()), self.op_idx, self.rank)

    def validate(self) -> None:
        if not isinstance(self.parent, DistributedEncoding):
            kind = getattr(self.parent, "kind", type(self.parent).__name__)
            raise self.fail("parent", f"the parent must be a distributed encoding, got {kind}")
        self.parent.validated  # noqa: B018  (validated once per parent value: the property runs validate())
        if self.op_idx not in (0, 1):
            raise self.fail("opIdx", f"opIdx can be 0 or 1, got {self.op_idx}")
        if self.k_width < 0:
            raise self.fail("kWidth", f"kWidth must be non-negative, got {self.k_width}")
        if self.k_dim < 0:
            raise self.fail("parent", f"operand {'AB'[self.op_idx]} has K at dim rank - {self.op_idx + 1}, "
                                      f"which a parent of rank {self.parent.rank} does not have")
        self.parent.validate_dot_operand(self.op_idx, self.k_width)

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        return self.parent.dot_operand_layout(self.op_idx, self.k_width, shape)

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        """The reference composition, where the parent has one (else its only lowering)."""
        generic = getattr(self.parent, "dot_operand_layout_generic", self.parent.dot_operand_layout)
        return generic(self.op_idx, self.k_width, shape)
