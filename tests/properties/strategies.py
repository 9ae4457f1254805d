"""Hypothesis strategies: small random LinearLayouts (at most ~9 in-bits, so brute force is cheap)."""

from __future__ import annotations

from hypothesis import strategies as st

from checker.layout import LinearLayout

DISTRIBUTED = ("register", "lane", "warp", "block")


@st.composite
def out_dims(draw, max_bits: int = 5):
    rank = draw(st.integers(1, 2))
    return [(f"dim{i}", 1 << draw(st.integers(0, max_bits - 2 if rank == 2 else max_bits))) for i in range(rank)]


@st.composite
def basis(draw, outs):
    """A basis vector biased towards the shapes layouts have: zero, unit, or anything."""
    kind = draw(st.sampled_from(["zero", "unit", "unit", "any"]))
    if kind == "zero":
        return tuple(0 for _ in outs)
    if kind == "unit":
        k = draw(st.integers(0, len(outs) - 1))
        size = outs[k][1]
        if size == 1:
            return tuple(0 for _ in outs)
        return tuple((1 << draw(st.integers(0, size.bit_length() - 2))) if j == k else 0 for j in range(len(outs)))
    return tuple(draw(st.integers(0, s - 1)) for _, s in outs)


@st.composite
def layouts(draw, in_dims=DISTRIBUTED, outs=None, bits=None):
    outs = outs if outs is not None else draw(out_dims())
    sizes = bits or {d: draw(st.integers(0, 2 if len(in_dims) > 2 else 4)) for d in in_dims}
    return LinearLayout([(d, [draw(basis(outs)) for _ in range(sizes[d])]) for d in in_dims], outs)


@st.composite
def pairs(draw, in_dims=DISTRIBUTED, same_sizes: bool = False):
    """Two layouts over the same out-dims; the second is often a small edit of the first."""
    A = draw(layouts(in_dims))
    outs = list(A.out_dim_sizes)
    if draw(st.booleans()):
        bases = {d: list(A.in_bases(d)) for d in A.in_dims}
        for _ in range(draw(st.integers(0, 2))):
            d = draw(st.sampled_from(list(in_dims)))
            if bases[d]:
                bases[d][draw(st.integers(0, len(bases[d]) - 1))] = draw(basis(outs))
        if draw(st.booleans()):
            d = draw(st.sampled_from(list(in_dims)))
            bases[d] = list(reversed(bases[d]))
        B = LinearLayout(list(bases.items()), outs)
    else:
        sizes = dict((d, A.in_dim_size_log2(d)) for d in in_dims) if same_sizes else None
        B = draw(layouts(in_dims, outs, sizes))
    return A, B
