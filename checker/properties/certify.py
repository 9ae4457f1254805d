"""Building the certificates of the GF(2) engine's ``holds`` verdicts (`checker.certificate` checks them).

This side may use `checker.f2` and `LinearLayout`; the checker may not. Each
builder returns a `Certificate` whose claim is plain data (``L.to_dict()``,
ints) and whose proof is what `checker.certificate` documents per kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .. import f2
from ..certificate import Certificate
from ..errors import InternalError
from ..layout import LinearLayout, log2


def left_inverse_rows(cols: Sequence[int]) -> list[int]:
    """Rows w_i with w_i·c_j = 1 iff i = j, for linearly independent columns (Gauss-Jordan with the
    transformation T kept: R = T·C reduced with pivot bits p_t, then w_i = sum_t T[t][i] e_{p_t})."""
    rows, trans, pivots = list(cols), [1 << j for j in range(len(cols))], []
    for r in range(len(rows)):
        e, t = rows[r], trans[r]
        for p, q in pivots:
            if e >> p & 1:
                e ^= rows[q]
                t ^= trans[q]
        if not e:
            raise InternalError("left_inverse_rows: the columns are dependent")
        p = (e & -e).bit_length() - 1
        for _, q in pivots:
            if rows[q] >> p & 1:
                rows[q] ^= e
                trans[q] ^= t
        rows[r], trans[r] = e, t
        pivots.append((p, r))
    out = [0] * len(cols)
    for p, q in pivots:                     # w_i gets bit p_t for every set bit i of T's row t
        t = trans[q]
        while t:
            low = t & -t
            out[low.bit_length() - 1] |= 1 << p
            t ^= low
    return out


def echelon(vectors: Sequence[int]) -> tuple[list[int], list[int]]:
    """(T, E): T unit lower triangular, E = T·vectors, nonzero rows of E with distinct leading bits."""
    pivots: dict[int, tuple[int, int]] = {}
    T, E = [], []
    for i, v in enumerate(vectors):
        e, t = v, 1 << i
        while e:
            h = e.bit_length() - 1
            if h not in pivots:
                pivots[h] = (e, t)
                break
            pe, pt = pivots[h]
            e ^= pe
            t ^= pt
        T.append(t)
        E.append(e)
    return T, E


def injective(L: LinearLayout, skip_zero: bool, dropped: Mapping[str, Sequence[int]] | None = None) -> Certificate:
    """A left inverse of L's kept columns (zero ones skipped modulo broadcast, `dropped` bits left out)."""
    drop = {d: set(js) for d, js in (dropped or {}).items()}
    kept = [c for d in L.in_dims for i, c in enumerate(_dim_cols(L, d))
            if i not in drop.get(d, ()) and (c or not skip_zero)]
    claim = {"layout": L.to_dict(), "skip_zero": skip_zero}
    if any(drop.values()):
        claim["dropped"] = {d: sorted(js) for d, js in drop.items() if js}
    return Certificate("left_inverse", claim, {"inverse": left_inverse_rows(kept)})


def surjective(L: LinearLayout, box: Mapping[str, int]) -> Certificate:
    """For each unit coordinate of the box, the in-bits whose columns XOR to it."""
    units, shift = [], 0
    for n, size in L.out_dim_sizes:
        units.extend(1 << (shift + k) for k in range(log2(min(size, box[n]))))
        shift += log2(size)
    combos = f2.solve(L.columns, units)
    if combos is None:
        raise InternalError("surjective certificate: a coordinate bit is outside the span")
    return Certificate("spanning", {"layout": L.to_dict(), "shape": dict(box)}, {"combinations": combos})


def equivalent(A: LinearLayout, B: LinearLayout, ranges=None) -> Certificate:
    """A and B with their own out sizes (`ranges`, when they were aligned to a common frame)."""
    if ranges is not None:
        A, B = (LinearLayout([(d, L.in_bases(d)) for d in L.in_dims], [(n, r[n]) for n in L.out_dims])
                for L, r in zip((A, B), ranges))
    return Certificate("equal_columns", {"layouts": [A.to_dict(), B.to_dict()]}, {"columns": len(A.columns)})


def conversion(src: LinearLayout, dst: LinearLayout, fixed: Sequence[str]) -> Certificate:
    """Per dst in-bit, the src columns outside `fixed` whose XOR is dst(e_j) + src(e_j on fixed)."""
    span = [c for d in src.in_dims if d not in fixed for c in _dim_cols(src, d)]
    targets = []
    for d in dst.in_dims:
        for i, _ in enumerate(dst.in_bases(d)):
            col = dst.pack_out(dst.in_bases(d)[i])
            if d in fixed:
                col ^= src.pack_out(src.in_bases(d)[i])
            targets.append(col)
    combos = f2.solve(span, targets)
    if combos is None:
        raise InternalError("conversion certificate: a dst basis is outside the span")
    return Certificate("combinations", {"src": src.to_dict(), "dst": dst.to_dict(), "fixed": list(fixed)},
                       {"combinations": combos})


def rank_preserved(vectors: Sequence[int], mask: int) -> Certificate:
    T, E = echelon([v & mask for v in vectors])
    return Certificate("rank_preserved", {"vectors": list(vectors), "mask": mask}, {"transform": T, "echelon": E})


def trivial_intersection(first: Sequence[int], second: Sequence[int]) -> Certificate:
    T, E = echelon(list(first) + list(second))
    return Certificate("trivial_intersection", {"first": list(first), "second": list(second)},
                       {"transform": T, "echelon": E})


def all_of(*parts: Certificate | None) -> Certificate | None:
    """One certificate of several (None when a part has none: then the whole has none)."""
    if not parts or any(p is None for p in parts):
        return None
    return Certificate("all_of", {}, {"parts": list(parts)})


def _dim_cols(L: LinearLayout, d: str) -> list[int]:
    """The packed columns of in-dim d's bits: its run of L.columns (in flat order, in-dim after in-dim)."""
    start = 0
    for name, size in L.in_dim_sizes:
        k = log2(size)
        if name == d:
            return list(L.columns[start:start + k])
        start += k
    return [L.pack_out(b) for b in L.in_bases(d)]      # not an in-dim: in_bases says so
