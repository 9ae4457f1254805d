"""Random small layouts: F2 and Z3 (engine="both" makes them agree or raise) match brute force."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.layout import LinearLayout
from checker.padded import PaddedLayout
from checker.properties.conversion import conversion
from checker.properties.equivalence import equivalent
from checker.properties.fits import fits
from checker.properties.injective import injective, injective_up_to_broadcast
from checker.properties.invertible import invertible
from checker.properties.surjective import surjective

from . import brute
from .strategies import edge_pairs, layouts, pairs, round_trips

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _replays(r):
    assert r.status in ("holds", "fails")
    for v in r.verdicts.values():
        assert v.status == r.status
        if v.counterexample is not None:
            assert v.counterexample.replay()


@SETTINGS
@given(layouts(), st.data())
def test_single_layout_properties(L, data):
    for prop, ref in ((surjective, brute.surjective), (injective, brute.injective),
                      (injective_up_to_broadcast, brute.injective_up_to_broadcast)):
        r = prop(L)
        _replays(r)
        assert r.holds == ref(L), (prop.__name__, str(L))
    shape = {n: 1 << data.draw(st.integers(0, s.bit_length())) for n, s in L.out_dim_sizes}
    r = surjective(L, shape)
    _replays(r)
    wide = LinearLayout([(d, L.in_bases(d)) for d in L.in_dims],
                        [(n, max(s, shape[n])) for n, s in L.out_dim_sizes])
    assert r.holds == brute.surjective(wide, shape)


@SETTINGS
@given(pairs())
def test_equivalent(pair):
    A, B = pair
    r = equivalent(A, B)
    _replays(r)
    assert r.holds == brute.equivalent(A, B)


@SETTINGS
@given(edge_pairs())
def test_equivalent_at_the_edges(pair):
    """Out sizes count, size-1 dims do not, a dim only one layout has matters (brute: the definition)."""
    A, B = pair
    r = equivalent(A, B)
    _replays(r)
    assert r.holds == brute.equivalent(A, B), (str(A), str(B))


@SETTINGS
@given(round_trips())
def test_conversion_through_shared_memory(case):
    """With via: the claims, which CTA's buffer each element goes through, and the level, against enumeration."""
    src, dst, S = case
    r = conversion(src, dst, via=S)
    _replays(r)
    claims = r.details["claims"]
    assert claims["contains"] == ("holds" if brute.contains(src, dst) else "fails")
    assert claims["writes"] == ("holds" if brute.contains(S, src) else "fails")
    assert claims["reads"] == ("holds" if brute.contains(S, dst) else "fails")
    trip = brute.round_trip(src, dst, S)
    assert {k: r.details["round_trip"][k] == "holds" for k in trip} == trip
    assert r.details["round_trip"]["level"] == ("cta" if all(trip.values()) else "cross_cta")
    assert r.details["level"] == brute.level_via(src, dst, S)
    assert r.holds == (brute.contains(src, dst) and brute.contains(S, src) and brute.contains(S, dst))


@SETTINGS
@given(pairs(same_sizes=False))
def test_conversion_levels(pair):
    src, dst = pair
    r = conversion(src, dst)
    _replays(r)
    assert r.holds == brute.contains(src, dst)
    assert r.details["level"] == brute.level(src, dst)
    for _lv, w in r.details["witnesses"].items():
        assert w["kind"] == "not_local"


def per_cta(S: LinearLayout) -> LinearLayout:
    """S without its zero block bases: invertible's definition is per CTA (the copies are broadcast CTAs)."""
    return LinearLayout([(d, [b for b in S.in_bases(d) if d != "block" or any(b)]) for d in S.in_dims],
                        S.out_dim_sizes)


@SETTINGS
@given(layouts(("offset", "block")))
def test_invertible(S):
    r = invertible(S)
    _replays(r)
    assert r.holds == (brute.injective(per_cta(S)) and brute.surjective(S))
    zero = [j for j, b in enumerate(S.in_bases("block")) if not any(b)] if S.has_in_dim("block") else []
    assert r.details.get("broadcast_ctas", {}).get("block_bits", []) == zero


@SETTINGS
@given(layouts(("offset", "block")), st.lists(st.integers(0, 4), max_size=3))
def test_invertible_with_declared_padding_offsets(S, declared):
    """Declared padding offset bits (NVMMA fp4Padded) are holes only where their basis is zero; per CTA as above."""
    r = invertible(S, padding_offset_bits=declared)
    _replays(r)
    holes = [j for j in sorted(set(declared)) if j < len(S.in_bases("offset")) and not any(S.in_bases("offset")[j])]
    kept = LinearLayout([("offset", [b for j, b in enumerate(S.in_bases("offset")) if j not in holes]),
                         ("block", S.in_bases("block"))], S.out_dim_sizes)
    assert r.holds == (brute.injective(per_cta(kept)) and brute.surjective(S))
    assert r.details.get("holes", {}).get("offset_bits", []) == holes


@SETTINGS
@given(layouts(("offset", "block")), st.integers(1, 32), st.integers(0, 200), st.data())
def test_fits(S, bits, capacity, data):
    n_pad = data.draw(st.integers(0, 2))
    intervals = tuple(1 << data.draw(st.integers(0, 3)) for _ in range(n_pad))
    paddings = tuple(1 << data.draw(st.integers(0, 2)) for _ in range(n_pad))
    mem = PaddedLayout(S, intervals, paddings)
    align = 1 << data.draw(st.integers(0, 4))
    base = data.draw(st.integers(0, 40))
    r = fits(mem, bits, capacity, align, base_bytes=base)
    _replays(r)
    start = -(-base // align) * align
    ends = [8 * start + (mem.phys(i) + 1) * bits for i in range(mem.offsets)]
    assert r.holds == (max(ends) <= 8 * capacity)
    slots = [mem.phys(i) for i in range(mem.offsets)]
    assert len(set(slots)) == len(slots)
    r = invertible(mem)
    assert r.holds == (brute.injective(per_cta(S)) and brute.surjective(S))
