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


def _domain(L: LinearLayout, dims) -> set[tuple]:
    """L's indices over `dims` (a dim L lacks has the one value 0)."""
    sizes = [L.in_dim_size(d) if L.has_in_dim(d) else 1 for d in dims]
    return set(itertools.product(*[range(s) for s in sizes]))


def _out_range(L: LinearLayout, names) -> set[tuple]:
    sizes = [L.out_dim_size(n) if n in L.out_dims else 1 for n in names]
    return set(itertools.product(*[range(s) for s in sizes]))


def equivalent(A: LinearLayout, B: LinearLayout) -> bool:
    """The definition of checker/properties/equivalence.py, enumerated: the same indices, the same out range,
    the same image at every index (dims matched by name; a dim one layout lacks has size 1 there)."""
    ins = sorted(set(A.in_dims) | set(B.in_dims))
    outs = sorted(set(A.out_dims) | set(B.out_dims))
    if _domain(A, ins) != _domain(B, ins) or _out_range(A, outs) != _out_range(B, outs):
        return False

    def image(L, x):
        c = L.apply({d: v for d, v in zip(ins, x) if L.has_in_dim(d)})
        return tuple(c.get(n, 0) for n in outs)

    return all(image(A, x) == image(B, x) for x in _domain(A, ins))


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


def _block(x: dict) -> int:
    return x.get("block", 0)


def round_trip(src: LinearLayout, dst: LinearLayout, S: LinearLayout) -> dict[str, bool]:
    """The CTA claims of conversion(src, dst, via=S), enumerated (checker/properties/conversion.py (e)):
    store_cta: every slot (o, b) of S holds an element some src index of CTA b holds;
    load_cta: every dst index x finds dst(x) in a slot of its own CTA's buffer (S(o, x.block))."""
    by_cta: dict[int, set] = {}
    for y in indices(src):
        by_cta.setdefault(_block(y), set()).add(key(src, src.apply(y)))
    slots: dict[int, set] = {}
    for p in indices(S):
        slots.setdefault(_block(p), set()).add(key(S, S.apply(p)))
    store = all(key(S, S.apply(p)) in by_cta.get(_block(p), set()) for p in indices(S))
    load = all(key(dst, dst.apply(x)) in slots.get(_block(x), set()) for x in indices(dst))
    return {"store_cta": store, "load_cta": load}


def level_via(src: LinearLayout, dst: LinearLayout, S: LinearLayout) -> str | None:
    """The level of conversion(src, dst, via=S): the direct level when the round trip stays in each CTA's
    own buffer, cross_cta when it does not (and src holds every element dst needs)."""
    direct = level(src, dst)
    if direct is None or all(round_trip(src, dst, S).values()):
        return direct
    return "cross_cta"
