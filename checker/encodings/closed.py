"""Closed-form lowering: a family's final bases written directly, with no intermediate LinearLayouts.

The generic lowering (each family's ``*_generic`` method, kept as the reference) composes
LinearLayout products of 1-D identities, then ``ensure_layout_not_smaller_than`` /
``NotLargerThan`` and the CGA product (``cga.combine_cta_cga_with_shape``): about ten
layouts per call. Here the same bases are computed as plain tuples of ints:

- `Tile` is a product ``id(s0, in0, d0) * zeros(s1, in1, d1) * ...`` of 1-D pieces
  written in place: the piece for in-dim ``i`` along dim ``d`` appends the bases
  ``size[d] << j`` (j < log2 s) to ``i`` and multiplies ``size[d]`` by s. In-dims and
  out-dims keep the order of their first appearance, as the product's supremum does.
- `combine` is ``combine_cta_cga_with_shape`` in closed form. With the CGA's sizes
  ``c[d]`` (inferred from its bases, clamped to the shape) and ``t[d] = shape[d] / c[d]``:
  the tile's first in-dim gets the bases ``size[d] << j`` for ``size[d] << j < t[d]``
  (dims in the tile's out order), every component ``>= t[d]`` becomes 0 (a zeroed
  register basis is dropped when ``broadcast_registers`` is false), and the block
  bases are the CGA's clamped bases shifted left by ``log2 t[d]``. Out sizes are the
  shape, in-dims are the tile's then ``block``.

Bases are kept in the standard component order (dim0, dim1, ...) throughout; the tile's
out order only decides the order of the repetition bases. tests/encodings/test_closed.py
checks every closed form against the generic composition (hypothesis, random parameters).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from operator import le, lt

from ..layout import LinearLayout, axis_bases
from .base import BLOCK, REGISTER, Bases

_NAMES = tuple(f"dim{i}" for i in range(16))


def names(rank: int) -> tuple[str, ...]:
    return _NAMES[:rank] if rank <= len(_NAMES) else tuple(f"dim{i}" for i in range(rank))


class Tile:
    """A product of 1-D identities / zeros built in place (see the module docstring)."""

    __slots__ = ("rank", "ins", "sizes", "outs")

    def __init__(self, rank: int):
        self.rank = rank
        self.ins: dict[str, list[tuple[int, ...]]] = {}
        self.sizes = [1] * rank
        self.outs: list[int] = []

    def copy(self) -> Tile:
        t = Tile.__new__(Tile)
        t.rank, t.sizes, t.outs = self.rank, list(self.sizes), list(self.outs)
        t.ins = {n: list(bs) for n, bs in self.ins.items()}
        return t

    def _bases_of(self, in_dim: str, d: int) -> list[tuple[int, ...]]:
        """in_dim's bases, to append to (a new in dim comes last), with dim d among the outs."""
        bs = self.ins.get(in_dim)
        if bs is None:
            bs = self.ins[in_dim] = []
        if d not in self.outs:
            self.outs.append(d)
        return bs

    def id(self, size: int, in_dim: str, d: int) -> Tile:
        """* identity_1d(size, in_dim, dim d) (size 0: the empty layout, nothing)."""
        if size == 0:
            return self
        s = self.sizes[d]
        self._bases_of(in_dim, d).extend(axis_bases(self.rank, d, size, s))
        self.sizes[d] = s * size
        return self

    def zeros(self, size: int, in_dim: str, d: int) -> Tile:
        """* zeros_1d(size, in_dim, dim d): log2(size) zero bases, dim d keeps its size."""
        if size == 0:
            return self
        bs = self._bases_of(in_dim, d)
        zero = (0,) * self.rank
        step = 1
        while step < size:
            bs.append(zero)
            step <<= 1
        return self


def growth(sizes: Sequence[int], targets: Sequence[int], order: Sequence[int]) -> list[tuple[int, ...]]:
    """ensure_layout_not_smaller_than's new bases in closed form: for each dim d in `order`, the bases
    sizes[d]·2^j along d while they stay below targets[d] (standard component order)."""
    rank = len(sizes)
    out = []
    for d in order:
        s = sizes[d]
        while s < targets[d]:
            b = [0] * rank
            b[d] = s
            out.append(tuple(b))
            s <<= 1
    return out


@lru_cache(maxsize=1024)
def cga_parts(cga_bases: Bases, shape: tuple[int, ...]) -> tuple[tuple[int, ...], Bases]:
    """(per-CTA shape t, block bases) of a CGA at a shape (see the module docstring)."""
    rank = len(shape)
    csize = [1] * rank
    for b in cga_bases:
        for k, c in enumerate(b):
            c = 1 << int(c).bit_length()
            if c > csize[k]:
                csize[k] = c
    csize = [min(c, s) for c, s in zip(csize, shape)]
    t = tuple(max(1, s // c) for s, c in zip(shape, csize))
    shifts = [x.bit_length() - 1 for x in t]
    block = tuple(tuple(0 if c >= cs else c << sh for c, cs, sh in zip(b, csize, shifts)) for b in cga_bases)
    return t, block


def combine(ins: Iterable[tuple[str, Iterable[tuple[int, ...]]]], sizes: Sequence[int], outs: Sequence[int],
            cga_bases: Sequence[tuple[int, ...]], shape: Sequence[int], *,
            broadcast_registers: bool = True) -> LinearLayout:
    """combine_cta_cga_with_shape in closed form; ins: (in-dim, bases) pairs of the tile in standard
    component order, sizes its out sizes, outs its out order (dim indices)."""
    shape = tuple(shape)
    rank = len(shape)
    if cga_bases:
        t, block = cga_parts(tuple(cga_bases), shape)
    else:
        t, block = shape, ()
    extra = growth(sizes, t, outs) if any(map(lt, sizes, t)) else ()
    out = []
    first = True
    if all(map(le, sizes, t)):                  # the tile's bases lie below its sizes: none is clamped
        for name, bs in ins:
            out.append((name, tuple(bs) + tuple(extra) if first else tuple(bs)))
            first = False
        out.append((BLOCK, block))
        return LinearLayout._of(out, tuple(zip(names(rank), shape)))
    over = [d for d in range(rank) if sizes[d] > t[d]]   # only along these can a component reach t[d]
    one = over[0] if len(over) == 1 else None             # (a slice's parent: the one dim of size 1)
    for name, bs in ins:
        drop = not broadcast_registers and name == REGISTER
        nb = []
        for b in bs:
            if one is not None:
                if b[one] < t[one]:
                    nb.append(b)
                    continue
                clamped = b[:one] + (0,) + b[one + 1:]
            elif all(b[d] < t[d] for d in over):
                nb.append(b)
                continue
            else:
                clamped = tuple(0 if c >= tc else c for c, tc in zip(b, t))   # c * (c < t[d])
            if drop and any(b) and not any(clamped):
                continue
            nb.append(clamped)
        if first:
            nb.extend(extra)
            first = False
        out.append((name, tuple(nb)))
    out.append((BLOCK, block))
    nm = names(rank)
    return LinearLayout._of(out, tuple(zip(nm, shape)))      # t[d] * c[d] = shape[d]


def tile_combine(tile: Tile, cga_bases: Sequence[tuple[int, ...]], shape: Sequence[int], *,
                 broadcast_registers: bool = True) -> LinearLayout:
    return combine(tile.ins.items(), tile.sizes, tile.outs, cga_bases, shape, broadcast_registers=broadcast_registers)


class FrozenTile:
    """A Tile's parts as tuples, for caching per encoding (shape-independent)."""

    __slots__ = ("ins", "sizes", "outs")

    def __init__(self, tile: Tile) -> None:
        self.ins = tuple((n, tuple(bs)) for n, bs in tile.ins.items())
        self.sizes = tuple(tile.sizes)
        self.outs = tuple(tile.outs)

    @classmethod
    def of_identities(cls, rank: int, pieces: Iterable[tuple[str, Sequence[int]]], order: Sequence[int]) -> FrozenTile:
        """The product over (in_dim, per-dim sizes) of `pieces` of ``identity_1d(sizes[d], in_dim, d)`` for d in
        `order` (each size a power of two >= 1), written directly: in-dim i gets the bases size[d]·2^j (j <
        log2 sizes[d]) along each d in order, size[d] accumulating; the out order is `order`."""
        grown = [1] * rank
        ins = []
        for in_dim, per in pieces:
            bs = []
            for d in order:
                bs.extend(axis_bases(rank, d, per[d], grown[d]))
                grown[d] *= per[d]
            ins.append((in_dim, tuple(bs)))
        tile = cls.__new__(cls)
        tile.ins, tile.sizes, tile.outs = tuple(ins), tuple(grown), tuple(order)
        return tile

    def combine(self, cga_bases: Sequence[tuple[int, ...]], shape: Sequence[int], *,
                broadcast_registers: bool = True) -> LinearLayout:
        return combine(self.ins, self.sizes, self.outs, cga_bases, shape, broadcast_registers=broadcast_registers)
