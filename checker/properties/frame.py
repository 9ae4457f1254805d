"""One coordinate frame for the layouts a property compares, and names for their bits.

Two layouts are compared coordinate by coordinate, so they must pack their
out bits the same way: `align` gives them the same out-dims, in the first
layout's order, each at the largest size any of them (or the requested
shape) has. Widening an out-dim does not change the function, only the
room around it.

In-bits are named as Triton prints bases: bit i of in-dim d is ``d=2^i``
(``lane=8``); a set of in-bits is a hardware index, written by component.
Everything that replays a witness goes through `LinearLayout.apply` on
plain integers (`image`), never through the column matrix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import LayoutError
from ..layout import LinearLayout, is_power_of_two, log2


def align(layouts: Sequence[LinearLayout], shape: Mapping[str, int] | None = None) -> list[LinearLayout]:
    """The layouts over the same out-dims (first layout's order), sizes maxed with shape."""
    names = list(layouts[0].out_dims)
    for L in layouts[1:]:
        if sorted(L.out_dims) != sorted(names):
            raise LayoutError(f"layouts over different tensor dims cannot be compared: {names} vs {list(L.out_dims)}")
    sizes = {n: max(L.out_dim_size(n) for L in layouts) for n in names}
    for n, s in (shape or {}).items():
        if n not in sizes:
            raise LayoutError(f"shape names dim '{n}', which the layout does not have (dims {names})")
        sizes[n] = max(sizes[n], s)
    frame = tuple((n, sizes[n]) for n in names)
    out = []
    for L in layouts:
        if L.out_dim_sizes == frame:        # already in the frame: the layout itself (layouts are values)
            out.append(L)
            continue
        L = L.transpose_outs(names)
        out.append(LinearLayout([(d, L.in_bases(d)) for d in L.in_dims], list(frame)))
    return out


def shape_map(L: LinearLayout, shape: Sequence[int] | Mapping[str, int] | None) -> dict[str, int]:
    """A shape as {out-dim: size} (a list is read in L's out-dim order); powers of two only."""
    if shape is None:
        return dict(L.out_dim_sizes)
    if not isinstance(shape, Mapping):
        shape = list(shape)
        if len(shape) != L.num_out_dims:
            raise LayoutError(f"shape {shape} has {len(shape)} dims, the layout has {L.num_out_dims} "
                              f"({list(L.out_dims)})")
        shape = dict(zip(L.out_dims, shape))
    shape = {**dict(L.out_dim_sizes), **shape}
    for n, s in shape.items():
        if not is_power_of_two(s):
            raise LayoutError(f"shape of '{n}' must be a power of two, got {s}")
    return {n: int(s) for n, s in shape.items()}


def bit_names(L: LinearLayout) -> list[str]:
    """One name per in-bit, in flat order: 'register=1', 'lane=16', ..."""
    return [f"{d}={1 << i}" for d, size in L.in_dim_sizes for i in range(log2(size))]


def describe(L: LinearLayout, mask: int) -> str:
    """A set of in-bits as 'lane=8 + warp=1' (the index they XOR to)."""
    names = bit_names(L)
    parts = [names[j] for j in range(len(names)) if mask >> j & 1]
    return " + ".join(parts) if parts else "the zero index"


def index(L: LinearLayout, flat: int) -> dict[str, int]:
    """A flat in-bit mask as a hardware index by component."""
    return L.split_in(flat)


def coordinate(L: LinearLayout, packed: int) -> dict[str, int]:
    return dict(zip(L.out_dims, L.unpack_out(packed)))


def show(values: Mapping[str, int]) -> str:
    return "(" + ", ".join(f"{k}={v}" for k, v in values.items()) + ")"


def in_range(L: LinearLayout, idx: Mapping[str, int]) -> bool:
    """idx names every in-dim of L (missing ones read 0) with a value inside its size."""
    return all(0 <= idx.get(d, 0) < size for d, size in L.in_dim_sizes) and set(idx) <= set(L.in_dims)


def image(L: LinearLayout, idx: Mapping[str, int]) -> dict[str, int] | None:
    """L(idx) by plain integer arithmetic (None when idx is not an index of L)."""
    if not in_range(L, idx):
        return None
    return L.apply({d: idx.get(d, 0) for d in L.in_dims})


def packed_image(L: LinearLayout, idx: Mapping[str, int]) -> int | None:
    c = image(L, idx)
    return None if c is None else L.pack_out([c[d] for d in L.out_dims])


def unit_images(L: LinearLayout, dims: Sequence[str] | None = None) -> list[int]:
    """L applied to every single-bit index of the given in-dims (all by default), packed:
    those are L's matrix columns."""
    out = []
    j = 0
    for d, size in L.in_dim_sizes:
        n = log2(size)
        if dims is None or d in dims:
            out += L.columns[j:j + n]
        j += n
    return out


def unit_image(L: LinearLayout, d: str, i: int) -> int | None:
    """L(d = 2^i) packed (a column of L), or None when L has no such index."""
    j = 0
    for name, size in L.in_dim_sizes:
        if name == d:
            return L.columns[j + i] if i < log2(size) else None
        j += log2(size)
    return None


def parity(v: int) -> int:
    return v.bit_count() & 1
