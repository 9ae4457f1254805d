"""``#ttg.slice``: the parent layout with one tensor dimension removed.

    P = parent lowered at shape with a 1 inserted at `dim`
        (so every basis component along `dim` is clamped to 0)
    L = P without out-dim `dim` (the rest renamed dim0..), with its all-zero
        register bases deleted (zero lane / warp bases stay: broadcast)

Out sizes are re-inferred from the bases. Slices nest (a slice of a slice).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..layout import LinearLayout, standard_out_dims
from .base import ENCODING, INT, REGISTER, Bases, DistributedEncoding, param


@dataclass(frozen=True)
class SliceEncoding(DistributedEncoding):
    kind = "slice"

    dim: int = param("dim", INT)
    parent: DistributedEncoding = param("parent", ENCODING)

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    def validate(self) -> None:
        if not isinstance(self.parent, DistributedEncoding):
            raise self.fail("parent", f"the parent must be a distributed encoding, got {self.parent.kind}")
        self.parent.validated  # noqa: B018  (validated once per parent value: the property runs validate())
        if self.parent.rank < 2:
            raise self.fail("parent", f"the parent layout must have rank >= 2, got {self.parent.rank}")
        if not 0 <= self.dim < self.parent.rank:
            raise self.fail("dim", f"slice dim={self.dim} must be less than the parent rank={self.parent.rank}")

    @property
    def cga_layout(self) -> Bases:
        """The parent's CGA bases without component `dim`."""
        return tuple(b[:self.dim] + b[self.dim + 1:] for b in getattr(self.parent, "cga_layout", ()))

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Closed form: the parent's bases without component `dim` (zero register bases dropped),
        each out size the smallest power of two above its components.

        Surjective with no check (Triton's sublayout requires it): P is surjective onto the parent shape
        (every distributed lowering is; tests/encodings/test_slice.py checks each family), and its out
        dim `dim` has size 1, so P's packed columns are L's plus zero register columns: the same span,
        every out bit."""
        dim = self.dim
        parent_shape = tuple(shape[:dim]) + (1,) + tuple(shape[dim:])
        self.parent.check_shape(parent_shape)           # validate() has validated the parent
        P = self.parent.to_linear_layout(parent_shape)
        ins = []
        for n, bs in P._ins:
            cut = [b[:dim] + b[dim + 1:] for b in bs]
            ins.append((n, tuple(b for b in cut if any(b)) if n == REGISTER else tuple(cut)))
        every = [b for _, bs in ins for b in bs]
        sizes = [1 << max(col).bit_length() for col in zip(*every)] if every else [1] * len(shape)
        return LinearLayout._of(ins, tuple(zip(standard_out_dims(len(shape)), sizes)))

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        """The reference: the parent lowered by its own reference composition, then sublayout / from_bases."""
        parent_shape = list(shape[:self.dim]) + [1] + list(shape[self.dim:])
        self.parent.check_shape(parent_shape)
        generic = getattr(self.parent, "to_linear_layout_generic", self.parent.to_linear_layout)
        P = generic(parent_shape)
        keep = [d for k, d in enumerate(P.out_dims) if k != self.dim]
        sub = P.sublayout(P.in_dims, keep)
        names = standard_out_dims(len(keep))
        bases = [(n, [b for b in bs if any(b)] if n == REGISTER else bs) for n, bs in sub.bases.items()]
        return LinearLayout.from_bases(bases, names)
