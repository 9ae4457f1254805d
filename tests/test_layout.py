"""LinearLayout: Triton's documented examples by value, and the algebra's laws (hypothesis)."""

import itertools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from checker.errors import LayoutError
from checker.layout import (
    LinearLayout,
    divide_left,
    divide_right,
    ensure_layout_not_larger_than,
    ensure_layout_not_smaller_than,
    identity_standard_nd,
    supremum,
)

id1 = LinearLayout.identity_1d
zeros1 = LinearLayout.zeros_1d


def bases(L):
    return {k: [list(b) for b in v] for k, v in L.bases.items()}


# ------------------------------------------------------------------ examples

def test_product_bit_ordering_examples():
    assert id1(4, "i", "o") * id1(2, "i", "o") == id1(8, "i", "o")
    L = id1(4, "i", "o") * zeros1(2, "i", "o")
    assert [L.apply({"i": x})["o"] for x in range(8)] == [x % 4 for x in range(8)]
    L = zeros1(2, "i", "o") * id1(4, "i", "o")
    assert [L.apply({"i": x})["o"] for x in range(8)] == [x // 2 for x in range(8)]
    L = id1(4, "i", "o1") * id1(8, "i", "o2")
    assert L.apply({"i": 13}) == {"o1": 1, "o2": 3}


def test_from_bases_infers_sizes_and_requires_surjective():
    L = LinearLayout.from_bases([("in", [(1,), (2,), (4,)])], ["out"])
    assert L.out_dim_sizes == (("out", 8),)
    with pytest.raises(LayoutError, match="surjective"):
        LinearLayout.from_bases([("in", [(1,), (4,)])], ["out"])


def test_invariants_name_the_problem():
    with pytest.raises(LayoutError, match="is not less than the out-dim size 4"):
        LinearLayout([("in", [(4,)])], [("out", 4)])
    with pytest.raises(LayoutError, match="powers of two"):
        LinearLayout([("in", [])], [("out", 3)])


def test_pseudoinvert_example():
    # bases {0, 2, 1, 4}: pivots are the lowest independent in-bits
    L = LinearLayout([("in", [(0,), (2,), (1,), (4,)])], [("out", 8)])
    P = L.pseudoinvert()
    assert bases(P) == {"out": [[4], [2], [8]]}
    for y in range(8):
        assert L.apply({"in": P.apply({"out": y})["in"]}) == {"out": y}


def test_free_variable_masks_example():
    L = LinearLayout([("in1", [(1, 1), (2, 2), (0, 0)]), ("in2", [(1, 0), (0, 1), (2, 0)])],
                     [("o1", 4), ("o2", 4)])
    assert L.get_free_variable_masks() == {"in1": 0b100, "in2": 0b10}


def test_num_consecutive_in_out():
    L = id1(4, "register", "dim1") * id1(8, "lane", "dim1")
    assert L.get_num_consecutive_in_out() == 4
    L = LinearLayout([("register", [(1,), (2,)]), ("lane", [(4,), (8,)])], [("dim0", 16)])
    assert L.get_num_consecutive_in_out() == 4
    L = LinearLayout([("register", [(1,), (2,)]), ("lane", [(2,)])], [("dim0", 4)])
    assert L.get_num_consecutive_in_out() == 2


def test_invert_and_compose_identity_dims_and_broadcast():
    # both broadcast warps: the warp dim maps as the identity, not to warp 0
    A = id1(32, "lane", "dim0") * zeros1(4, "warp", "dim0")
    C = A.invert_and_compose(A)
    assert C.sublayout(["warp"], ["warp"]) == id1(4, "warp", "warp")


def test_reshape_outs_and_flatten():
    L = id1(4, "i", "a") * id1(2, "i", "b")
    F = L.flatten_outs()
    assert F.out_dim_sizes == (("a", 8),)
    assert [F.apply({"i": x})["a"] for x in range(8)] == list(range(8))
    R = L.reshape_outs([("x", 2), ("y", 4)])
    assert R.apply({"i": 5}) == {"x": 1, "y": 2}


def test_sublayout_and_quotient():
    L = id1(4, "register", "register") * id1(8, "lane", "lane")
    assert L.is_trivial_over(["register"])
    assert L.quotient(["register"]) == id1(8, "lane", "lane")
    M = LinearLayout([("register", [(1, 1), (2, 0)]), ("lane", [(0, 1), (0, 2)])], [("register", 4), ("lane", 4)])
    assert not M.is_trivial_over(["register"])
    assert M.quotient(["register"]) is None


def test_divide_left_right():
    A = id1(4, "register", "dim0") * id1(8, "lane", "dim0")
    C = divide_left(A, id1(4, "register", "dim0"))
    assert bases(C) == {"register": [], "lane": [[1], [2], [4]]} and C.out_dim_sizes == (("dim0", 8),)
    C = divide_right(A, id1(8, "lane", "dim0"))
    assert bases(C) == {"register": [[1], [2]], "lane": []} and C.out_dim_sizes == (("dim0", 4),)
    assert divide_left(A, id1(2, "lane", "dim0")) is None


def test_supremum():
    assert supremum(["a", "b"], ["a", "c"]) == ["a", "b", "c"]
    assert supremum(["a", "b"], ["b", "c"]) == ["a", "b", "c"]
    # Triton's merge resolves this tie in favour of the first list rather than failing
    assert supremum(["a", "b"], ["b", "a"]) == ["a", "b"]


def test_ensure_layout_helpers():
    L = id1(4, "register", "dim0") * id1(32, "lane", "dim0")
    small = ensure_layout_not_larger_than(L, {"dim0": 8})
    assert bases(small) == {"register": [[1], [2]], "lane": [[4], [0], [0], [0], [0]]}
    small = ensure_layout_not_larger_than(id1(16, "register", "dim0"), {"dim0": 4}, broadcast_registers=False)
    assert bases(small) == {"register": [[1], [2]]}
    big = ensure_layout_not_smaller_than(id1(4, "register", "dim0"), {"dim0": 16})
    assert bases(big) == {"register": [[1], [2], [4], [8]]}
    # out-dims appear in `order` sequence (dim1 first), so components read (dim1, dim0)
    L = identity_standard_nd("lane", [2, 4], [1, 0])
    assert L.out_dims == ("dim1", "dim0") and bases(L) == {"lane": [[1, 0], [2, 0], [0, 1]]}


def test_to_dict_round_trip_and_printing():
    L = (id1(2, "register", "dim1") * id1(4, "lane", "dim0")).transpose_outs(["dim0", "dim1"])
    d = L.to_dict()
    assert d == {"bases": {"register": [[0, 1]], "lane": [[1, 0], [2, 0]]}, "out_dims": {"dim0": 4, "dim1": 2}}
    assert LinearLayout.from_dict(d) == L
    assert str(L).splitlines() == [" - register=1 -> (0, 1)", " - lane=1 -> (1, 0)", "   lane=2 -> (2, 0)",
                                   "where out dims are: [dim0 (size 4), dim1 (size 2)]"]


# ---------------------------------------------------------------- hypothesis

@st.composite
def layouts(draw, in_dims=("register", "lane"), out_dims=("dim0", "dim1"), max_log=3):
    out_logs = [draw(st.integers(0, max_log)) for _ in out_dims]
    ins = []
    for d in in_dims:
        n = draw(st.integers(0, max_log))
        ins.append((d, [tuple(draw(st.integers(0, (1 << lg) - 1)) for lg in out_logs) for _ in range(n)]))
    return LinearLayout(ins, [(o, 1 << lg) for o, lg in zip(out_dims, out_logs)])


def enumerate_map(L):
    """Brute force: every input -> output, by apply."""
    out = {}
    names = L.in_dims
    ranges = [range(L.in_dim_size(d)) for d in names]
    for combo in itertools.product(*ranges):
        out[combo] = tuple(L.apply(dict(zip(names, combo))).values())
    return out


@given(layouts(), layouts(), layouts())
def test_product_is_associative(a, b, c):
    assert (a * b) * c == a * (b * c)


@given(layouts())
def test_compose_with_identity(L):
    ident = LinearLayout.empty()
    for n, s in L.out_dim_sizes:
        ident = ident * id1(s, n, n)
    assert L.compose(ident) == L


@given(layouts())
def test_rank_bounds_and_brute_force(L):
    r = L.rank()
    assert 0 <= r <= min(L.total_in_size_log2, L.total_out_size_log2)
    image = set(enumerate_map(L).values())
    assert len(image) == 1 << r
    assert L.is_surjective() == (len(image) == L.total_out_size)
    assert L.is_injective() == (len(image) == L.total_in_size)


@settings(max_examples=150)
@given(st.permutations(list(range(5))), st.lists(st.booleans(), min_size=5, max_size=5))
def test_invert_then_compose_is_identity(perm, flips):
    # an invertible layout: a permutation of bits with some XOR mixing (upper-triangular in perm order)
    cols = []
    for i, p in enumerate(perm):
        v = 1 << p
        if flips[i] and i > 0:
            v ^= 1 << perm[i - 1]
        cols.append(v)
    L = LinearLayout([("in", [(c,) for c in cols])], [("out", 32)])
    assume(L.is_invertible())
    inv = L.invert()
    for x in range(32):
        assert inv.apply({"out": L.apply({"in": x})["out"]}) == {"in": x}
    assert L.compose(inv) == id1(32, "in", "in")


@settings(max_examples=150)
@given(layouts(in_dims=("register", "lane"), max_log=3), st.data())
def test_invert_and_compose_solves(A, data):
    # build B whose image contains A's: B = A's bases plus extra random bases
    extra = data.draw(st.lists(st.tuples(*[st.integers(0, s - 1) for _, s in A.out_dim_sizes]), max_size=3))
    B = LinearLayout([("lane", list(A.in_bases("lane")) + extra), ("register", A.in_bases("register"))],
                     A.out_dim_sizes)
    C = A.invert_and_compose(B)
    assert C.in_dims == A.in_dims and C.out_dims == B.in_dims
    for x, y in enumerate_map(A).items():
        mid = C.apply(dict(zip(A.in_dims, x)))
        assert tuple(B.apply(mid).values()) == y


@given(layouts(max_log=3))
def test_reshape_round_trips(L):
    flat_in = L.reshape_ins([("all", L.total_in_size)])
    assert flat_in.reshape_ins(L.in_dim_sizes) == L
    flat_out = L.flatten_outs()
    assert flat_out.reshape_outs(L.out_dim_sizes) == L


@given(layouts(), layouts())
def test_divide_left_inverts_product(a, b):
    prod = a * b
    c = divide_left(prod, a)
    assert c is not None and a * c == prod


def test_reshapes_refuse_duplicate_names_and_keep_the_map():
    L = LinearLayout.identity_1d(16, "register", "dim0")
    with pytest.raises(LayoutError, match="duplicate dim names"):
        L.reshape_outs([("a", 4), ("a", 4)])
    with pytest.raises(LayoutError, match="duplicate dim names"):
        L.reshape_ins([("r", 4), ("r", 4)])
    split = L.reshape_outs([("a", 4), ("b", 4)])
    assert dict(split.bases) == {"register": ((1, 0), (2, 0), (0, 1), (0, 2))}
    assert list(split.out_dim_sizes) == [("a", 4), ("b", 4)]
    assert split.reshape_outs([("dim0", 16)]) == L
    assert dict(L.reshape_ins([("x", 4), ("y", 4)]).bases) == {"x": ((1,), (2,)), "y": ((4,), (8,))}


@st.composite
def inversion_pairs(draw):
    """(self, outer) for invert_and_compose: in-dims from one pool in any order and subset, shared in-dims
    often with equal bases (identity dims), outer's out sizes equal or larger and its out order shuffled,
    now and then an out-dim that does not match (the error paths)."""
    out_dims = ("dim0", "dim1")
    b_logs = [draw(st.integers(0, 3)) for _ in out_dims]
    a_logs = [lg + draw(st.sampled_from((0, 0, 1))) for lg in b_logs]

    def basis(logs):
        return tuple(draw(st.integers(0, (1 << lg) - 1)) for lg in logs)
    pool = ("register", "lane", "warp", "block")
    b_in = draw(st.permutations(pool))[:draw(st.integers(1, 4))]
    a_in = draw(st.permutations(pool))[:draw(st.integers(1, 4))]
    b_ins = [(d, [basis(b_logs) for _ in range(draw(st.integers(0, 3)))]) for d in b_in]
    a_ins = [(d, list(dict(b_ins)[d]) if d in dict(b_ins) and draw(st.booleans())
              else [basis(a_logs) for _ in range(draw(st.integers(0, 3)))]) for d in a_in]
    order = draw(st.permutations(out_dims))
    outer = LinearLayout(a_ins, [(o, 1 << a_logs[out_dims.index(o)]) for o in out_dims]).transpose_outs(order)
    if draw(st.integers(0, 9)) == 0:                        # an out-dim self lacks
        outer = LinearLayout._of(outer._ins, (("dim7", outer._outs[0][1]),) + outer._outs[1:])
    return LinearLayout(b_ins, [(o, 1 << lg) for o, lg in zip(out_dims, b_logs)]), outer


@settings(max_examples=400, deadline=None)
@given(inversion_pairs())
def test_invert_and_compose_closed_form_is_the_composition(pair):
    B, A = pair

    def outcome(f):
        try:
            return f(A)
        except LayoutError as e:
            return ("LayoutError", str(e))
    closed, generic = outcome(B.invert_and_compose), outcome(B.invert_and_compose_generic)
    assert closed == generic
    if isinstance(closed, LinearLayout):
        assert closed.in_dim_sizes == generic.in_dim_sizes and closed.out_dim_sizes == generic.out_dim_sizes
