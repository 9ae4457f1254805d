"""The CGA (cooperative grid array) layout: how CTAs of a cluster tile the tensor.

Triton 3.9 stores it as a LinearLayout ``block -> dim0..`` given by its bases
(printed ``CGALayout = [[...], ...]``, omitted when there is one CTA). Each
out size is the smallest power of two above the largest basis component. It
must be a permutation matrix once its zero (broadcast) bases are removed.

The legacy form (CTAsPerCGA, CTASplitNum, CTAOrder) converts as

    L = prod over d in CTAOrder (minor first) of
        identity1D(split[d], block, d) * zeros1D(CTAs[d] / split[d], block, d)

and ``combine_cta_cga_with_shape`` joins a per-CTA layout with it for a shape:
the CGA is clamped to the shape, the CTA layout is grown (register/offset
repetition, in its out-dim order) or clamped (broadcast) to shape / CGA size,
and the product puts block bits above everything else.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import EncodingError
from ..layout import (
    LinearLayout,
    ensure_layout_not_larger_than,
    ensure_layout_not_smaller_than,
    is_power_of_two,
    log2,
    standard_out_dims,
)
from .base import BLOCK, Bases, as_bases, bases_extent, is_permutation_matrix


def cga_linear_layout(bases: Bases, rank: int) -> LinearLayout:
    """The CGA LinearLayout of the given bases (sizes inferred, no surjectivity required)."""
    return LinearLayout([(BLOCK, bases)], list(zip(standard_out_dims(rank), bases_extent(bases, rank))))


def validate_cga(bases: Bases, rank: int, kind: str, field: str = "CGALayout") -> None:
    """Rank match, and a permutation matrix after removing zero bases."""
    for b in bases:
        if len(b) != rank:
            raise EncodingError(f"{kind}: CGALayout entry {list(b)} does not have the rank {rank}", field=field)
        if any(c < 0 for c in b):
            raise EncodingError(f"{kind}: CGALayout entry {list(b)} is negative", field=field)
    if not is_permutation_matrix(bases):
        raise EncodingError(f"{kind}: after removing broadcast (zero) bases the CGA layout must be a "
                            f"permutation matrix, got {[list(b) for b in bases]}", field=field)


def cga_bases_from_split_params(ctas_per_cga: Sequence[int], cta_split_num: Sequence[int],
                                cta_order: Sequence[int], kind: str = "CTALayout") -> Bases:
    """Legacy (CTAsPerCGA, CTASplitNum, CTAOrder) -> CGA bases, as Triton converts them."""
    rank = len(cta_order)
    if len(ctas_per_cga) != rank or len(cta_split_num) != rank:
        raise EncodingError(f"{kind}: CTAsPerCGA, CTASplitNum and CTAOrder must have the same rank",
                            field="CTAsPerCGA")
    if sorted(cta_order) != list(range(rank)):
        raise EncodingError(f"{kind}: CTAOrder must be a permutation of 0..{rank - 1}, got {list(cta_order)}",
                            field="CTAOrder")
    for name, vals in (("CTAsPerCGA", ctas_per_cga), ("CTASplitNum", cta_split_num)):
        if any(not is_power_of_two(v) for v in vals):
            raise EncodingError(f"{kind}: every entry of {name} must be a power of two, got {list(vals)}",
                                field=name)
    for d in range(rank):
        if ctas_per_cga[d] % cta_split_num[d]:
            raise EncodingError(f"{kind}: CTAsPerCGA[{d}] = {ctas_per_cga[d]} is not divisible by "
                                f"CTASplitNum[{d}] = {cta_split_num[d]}", field="CTASplitNum")
    names = standard_out_dims(rank)
    L = LinearLayout.empty()
    for d in cta_order:
        L = L * LinearLayout.identity_1d(cta_split_num[d], BLOCK, names[d]) \
              * LinearLayout.zeros_1d(ctas_per_cga[d] // cta_split_num[d], BLOCK, names[d])
    if L.num_out_dims != rank:  # dims of size 1 never appear in the product
        L = L * LinearLayout([(BLOCK, [])], [(n, 1) for n in names if not L.has_out_dim(n)])
    L = L.transpose_outs(names)
    return L.in_bases(BLOCK)


def cta_split_num(bases: Bases, rank: int) -> list[int]:
    """Per dim, 2^(number of non-zero bases along it)."""
    out = [1] * rank
    for b in bases:
        for k, c in enumerate(b):
            if c:
                out[k] *= 2
                break
    return out


def ctas_per_cga(bases: Bases, rank: int) -> list[int]:
    """As cta_split_num, with each zero basis doubling the dim of the last non-zero one."""
    out = [1] * rank
    last = 0
    for b in bases:
        nz = next((k for k, c in enumerate(b) if c), None)
        if nz is not None:
            last = nz
        out[last] *= 2
    return out


def shape_per_cta(bases: Bases, shape: Sequence[int]) -> list[int]:
    """shape[i] / min(shape[i], CTASplitNum[i]) (the shape itself with no CGA bases: one CTA)."""
    if not bases:
        return list(shape)
    split = cta_split_num(bases, len(shape))
    return [s // min(s, k) for s, k in zip(shape, split)]


def combine_cta_cga_with_shape(cta: LinearLayout, cga_bases: Bases, shape: Sequence[int], *,
                               broadcast_registers: bool = True) -> LinearLayout:
    """Join a per-CTA layout with the CGA layout for a tensor shape (see the module docstring).

    broadcast_registers=False drops register bases that fall outside the
    shape instead of zeroing them (what Triton 3.9 does for blocked layouts).
    """
    rank = len(shape)
    names = standard_out_dims(rank)
    labeled = dict(zip(names, shape))
    if not cga_bases and set(cta.out_dims) == set(names):
        # one CTA: the CGA has no bits, so the product only appends an empty block dim
        cta = ensure_layout_not_smaller_than(cta, labeled)
        cta = ensure_layout_not_larger_than(cta, labeled, broadcast_registers=broadcast_registers)
        return cta.with_in_dim(BLOCK).transpose_outs(names)
    cga = ensure_layout_not_larger_than(cga_linear_layout(as_bases(cga_bases), rank), labeled)
    cga = cga.transpose_outs(list(cta.out_dims))
    cta_shape = {d: max(1, labeled[d] // cga.out_dim_size(d)) for d in cta.out_dims}
    cta = ensure_layout_not_smaller_than(cta, cta_shape)
    cta = ensure_layout_not_larger_than(cta, cta_shape, broadcast_registers=broadcast_registers)
    return (cta * cga).transpose_outs(names)


__all__ = ["cga_linear_layout", "validate_cga", "cga_bases_from_split_params", "cta_split_num",
           "ctas_per_cga", "shape_per_cta", "combine_cta_cga_with_shape", "log2"]
