"""Brute-force reference for the properties: enumerate every hardware index (tests only).

Nothing here uses GF(2) algebra or a solver: each property is its definition,
evaluated by `LinearLayout.apply` over all indices. Only for small layouts.
"""

from __future__ import annotations

import itertools

from checker.layout import LinearLayout

FIXED = {"register": ("lane", "warp", "block"), "warp": ("warp", "block"), "cta": ("block",), "cross_cta": ()}


def indices(L: LinearLayout):
    dims = L.in_dims
    for vals in itertools.product(*[range(L.in_dim_size(d)) for d in dims]):
        yield dict(zip(dims, vals))


def key(L: LinearLayout, c: dict) -> tuple:
    return tuple(c[d] for d in sorted(L.out_dims))


def images(L: LinearLayout) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for x in indices(L):
        out.setdefault(key(L, L.apply(x)), []).append(x)
    return out


def surjective(L: LinearLayout, shape: dict | None = None) -> bool:
    shape = shape or dict(L.out_dim_sizes)
    held = set(images(L))
    names = sorted(L.out_dims)
    return all(c in held for c in itertools.product(*[range(shape[n]) for n in names]))


def injective(L: LinearLayout) -> bool:
    return all(len(xs) == 1 for xs in images(L).values())


def injective_up_to_broadcast(L: LinearLayout) -> bool:
    zero = {d: sum(1 << i for i, b in enumerate(L.in_bases(d)) if not any(b)) for d in L.in_dims}
    for xs in images(L).values():
        a = xs[0]
        for b in xs[1:]:
            if any((a[d] ^ b[d]) & ~zero[d] for d in L.in_dims):
                return False
    return True


def equivalent(A: LinearLayout, B: LinearLayout) -> bool:
    if A.in_dim_sizes != B.in_dim_sizes and dict(A.in_dim_sizes) != dict(B.in_dim_sizes):
        return False
    return all(key(A, A.apply(x)) == key(B, B.apply(x)) for x in indices(A))


def contains(src: LinearLayout, dst: LinearLayout) -> bool:
    held = set(images(src))
    return all(key(dst, dst.apply(x)) in held for x in indices(dst))


def level(src: LinearLayout, dst: LinearLayout) -> str | None:
    held = images(src)
    for name, fixed in FIXED.items():
        ok = True
        for x in indices(dst):
            ys = held.get(key(dst, dst.apply(x)), [])
            if not any(all(y.get(d, 0) == x.get(d, 0) for d in fixed) for y in ys):
                ok = False
                break
        if ok:
            return name
    return None
