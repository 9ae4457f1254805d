"""Brute-force views of small layouts, for asserting worked examples as exact tables (tests only)."""

import itertools


def owners(L, threads_per_warp=32):
    """coordinate -> sorted [(block, thread, register)] of every hardware index holding it."""
    table = {}
    dims = L.in_dims
    for combo in itertools.product(*[range(L.in_dim_size(d)) for d in dims]):
        hw = dict(zip(dims, combo))
        coord = tuple(L.apply(hw).values())
        thread = hw.get("lane", 0) + hw.get("warp", 0) * threads_per_warp
        table.setdefault(coord, []).append((hw.get("block", 0), thread, hw.get("register", 0)))
    return {k: sorted(v) for k, v in table.items()}


def thread_grid(L, threads_per_warp=32, block=0):
    """2-D list: the smallest thread id owning each element (row-major), for one block."""
    rows, cols = (s for _, s in L.out_dim_sizes)
    own = owners(L, threads_per_warp)
    return [[min(t for b, t, _ in own[(r, c)] if b == block) for c in range(cols)] for r in range(rows)]


def stored_elements(L):
    """Flat list: element index (row-major) stored at each offset, for a 2-D shared layout, block 0."""
    sizes = [s for _, s in L.out_dim_sizes]
    out = []
    for k in range(L.in_dim_size("offset")):
        r, c = L.apply({"offset": k, "block": 0}).values()
        out.append(r * sizes[1] + c)
    return out
