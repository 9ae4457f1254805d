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


@st.composite
def edge_pairs(draw):
    """Two layouts that are often the same map but differ at an edge: an out-dim widened (same bases), a
    size-1 dim (in or out) only one of them names, an in-dim only one of them has, or an out-dim renamed."""
    A, B = draw(pairs())
    edit = draw(st.sampled_from(["none", "widen_out", "size1_in", "size1_out", "extra_in", "rename_out"]))
    if draw(st.booleans()):
        B = A
    outs = list(B.out_dim_sizes)
    bases = [(d, list(B.in_bases(d))) for d in B.in_dims]
    if edit == "widen_out":
        k = draw(st.integers(0, len(outs) - 1))
        outs[k] = (outs[k][0], outs[k][1] * 2)
    elif edit == "size1_in":
        bases = [(d, b) for d, b in bases if b or draw(st.booleans())]
        if not any(d == "extra" for d, _ in bases) and draw(st.booleans()):
            bases.append(("extra", []))
    elif edit == "size1_out":
        outs.append(("dim9", 1))
        bases = [(d, [tuple(v) + (0,) for v in b]) for d, b in bases]
    elif edit == "extra_in":
        bases.append(("offset", [draw(basis(outs))]))
    elif edit == "rename_out":
        outs[-1] = ("dim7", outs[-1][1])
    B = LinearLayout(bases, outs)
    return (A, B) if draw(st.booleans()) else (B, A)


@st.composite
def round_trips(draw):
    """src, dst over the same out-dims (with blocks) and a shared layout S: (offset, block) -> coordinates,
    often src's own bases with its block bases kept (a CTA-local buffer), or edited."""
    src, dst = draw(pairs(same_sizes=False))
    outs = list(src.out_dim_sizes)
    offset = [b for d in ("register", "lane", "warp") for b in src.in_bases(d)]
    offset = draw(st.permutations(offset))
    block = list(src.in_bases("block"))
    edit = draw(st.sampled_from(["none", "swap", "basis", "broadcast", "random"]))
    if edit == "swap" and offset and block:
        i, j = draw(st.integers(0, len(offset) - 1)), draw(st.integers(0, len(block) - 1))
        offset[i], block[j] = block[j], offset[i]
    elif edit == "basis" and offset:
        offset[draw(st.integers(0, len(offset) - 1))] = draw(basis(outs))
    elif edit == "broadcast" and block:
        block[draw(st.integers(0, len(block) - 1))] = tuple(0 for _ in outs)
    S = LinearLayout([("offset", offset), ("block", block)], outs)
    if edit == "random":
        S = draw(layouts(("offset", "block"), outs))
    return src, dst, S
