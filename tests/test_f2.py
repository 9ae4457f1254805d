"""GF(2) algebra: ranks, solves, kernels and intersections, by value and by law."""

from hypothesis import given, settings
from hypothesis import strategies as st

from checker import f2

vectors = st.lists(st.integers(min_value=0, max_value=(1 << 10) - 1), max_size=12)


def brute_span(vs):
    span = {0}
    for v in vs:
        span |= {s ^ v for s in span}
    return span


def test_rank_examples():
    assert f2.rank([]) == 0
    assert f2.rank([0, 0]) == 0
    assert f2.rank([1, 2, 3]) == 2
    assert f2.rank([1, 2, 4, 7]) == 3


def test_pivots_are_lowest_index_independent_columns():
    # Triton's pseudo-inverse example: bases {0, 2, 1, 4}
    assert f2.pivot_columns([0, 2, 1, 4]) == [1, 2, 3]
    assert f2.free_columns([0, 2, 1, 4]) == [0]
    # the solution uses pivots only: 1 -> column 2, 2 -> column 1, 4 -> column 3
    assert f2.solve([0, 2, 1, 4], [1, 2, 4]) == [0b100, 0b010, 0b1000]


def test_solve_outside_span_is_none():
    assert f2.solve([1, 2], [4]) is None


def test_rref_is_reduced():
    rows = f2.rref([0b110, 0b011, 0b101], 3)
    assert rows == [0b101, 0b110]


@given(vectors)
def test_rank_equals_log2_of_span_size(vs):
    assert 1 << f2.rank(vs) == len(brute_span(vs))


@given(vectors)
def test_nullspace_vectors_are_in_the_kernel_and_complete(vs):
    kernel = f2.nullspace(vs)
    for x in kernel:
        assert x and f2.combine(vs, x) == 0
    assert f2.rank(kernel) == len(kernel) == len(vs) - f2.rank(vs)


@given(vectors, vectors)
def test_span_intersection_matches_sets(a, b):
    inter = f2.span_intersection(a, b)
    assert brute_span(inter) == brute_span(a) & brute_span(b)


@settings(max_examples=200)
@given(vectors, st.integers(min_value=0, max_value=(1 << 10) - 1))
def test_solve_reconstructs_targets_in_span(vs, t):
    sol = f2.solve(vs, [t])
    if t in brute_span(vs):
        assert sol is not None and f2.combine(vs, sol[0]) == t
        pivots = set(f2.pivot_columns(vs))
        assert all(j in pivots for j in range(len(vs)) if sol[0] >> j & 1)
    else:
        assert sol is None


@given(st.lists(st.integers(0, 255), max_size=8), st.lists(st.integers(0, 255), max_size=8))
def test_first_outside_span_is_the_first_target_in_span_fails(targets, vectors):
    want = next((t for t in targets if not f2.in_span(t, vectors)), None)
    assert f2.first_outside_span(targets, vectors) == want


@given(st.lists(st.integers(0, 255), max_size=10), st.lists(st.integers(0, 255), max_size=10))
def test_span_answers_as_in_span_while_it_grows(vectors, queries):
    span = f2.Span(vectors[:3])
    seen = list(vectors[:3])
    for v in vectors[3:]:
        assert span.add(v) == (not f2.in_span(v, seen))
        seen.append(v)
        assert [q in span for q in queries] == [f2.in_span(q, seen) for q in queries]
    assert len(f2.span_basis(seen)) == f2.rank(seen)


def test_span_by_value():
    span = f2.Span([0b011, 0b110])
    assert 0b101 in span and 0b001 not in span and 0 in span
    assert span.add(0b101) is False and span.add(0b001) is True and 0b111 in span
