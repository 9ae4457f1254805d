"""`coalesced`'s shortcuts against the plain definitions: `Plan.counts` (requests counted by A's residue, A the
start's share plus the warp's) against every lane's address counted afresh, and `_z3_layout_vec` started
from a guess against the walk up from 1."""

from hypothesis import given, settings
from hypothesis import strategies as st

from checker.properties.coalesced import (
    Plan,
    _z3_layout_vec,
    contig_per_thread,
    layout_order,
    min_sectors_of,
    sectors_of,
)

from .strategies import layouts

STRIDES = st.sampled_from([0, 1, 2, 4, 12, 64, 100, 256, -64, 1 << 20])


def _afresh(p: Plan) -> list[tuple[int, int, int, int]]:
    """(warp, register start, sectors, min_sectors) of every request, from every lane's `address`."""
    want = []
    for w in p.issuing_warps():
        for r in p.starts():
            addrs = [p.address(r, ln, w) for ln in range(p.lanes)]
            want.append((w, r, sectors_of(addrs, p.vector_bytes), min_sectors_of(addrs, p.vector_bytes)))
    return want


@settings(max_examples=150, deadline=None)
@given(L=layouts(), data=st.data(), bits=st.sampled_from([8, 16, 32]), kind=st.sampled_from(["load", "store"]),
       base=st.sampled_from([0, 4, 20]))
def test_counts_are_every_requests_lanes_counted_afresh(L, data, bits, kind, base):
    regs = L.in_dim_size("register")
    vec = data.draw(st.sampled_from([v for v in (1, 2, 4, 8) if v <= regs]))
    strides = [data.draw(STRIDES) for _ in L.out_dims]
    p = Plan(L, bits, vec, strides, kind, base)
    want = _afresh(p)
    assert p.counts() == want
    assert [(q.warp, q.register, q.sectors, q.min_sectors) for q in p.requests()] == want
    assert all(list(q.addresses) == [p.address(q.register, ln, q.warp) for ln in range(p.lanes)]
               for q in p.requests())


def test_counts_where_registers_and_warps_share_bits_apart_from_the_lanes():
    """A start and a warp setting the same coordinate bit (a broadcast warp): r ^ w is not r + w, so A is not
    the start's share plus the warp's; counted request by request."""
    from checker.layout import LinearLayout
    L = LinearLayout({"register": [(1,), (2,)], "lane": [(4,), (8,)], "warp": [(2,)]}, [("dim0", 16)])
    for strides in ([4], [12], [100]):
        p = Plan(L, 32, 2, strides, "load")
        assert p.counts() == _afresh(p)


@settings(max_examples=40, deadline=None)
@given(L=layouts(), cap=st.sampled_from([1, 2, 4, 8, 16]), guess=st.sampled_from([1, 2, 4, 8, 16, 32]))
def test_the_layout_vector_is_the_same_from_any_guess(L, cap, guess):
    order0 = layout_order(L)[0]
    walked = _z3_layout_vec(L, order0, cap)
    assert _z3_layout_vec(L, order0, cap, guess) == walked
    assert _z3_layout_vec(L, order0, cap, contig_per_thread(L)[order0]) == walked
