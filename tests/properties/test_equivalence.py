from checker.layout import LinearLayout
from checker.properties.equivalence import equivalent

A = LinearLayout({"register": [(1,), (2,)], "lane": [(4,), (8,)]}, [("dim0", 16)])


def test_same_function_other_order():
    B = LinearLayout({"lane": [(4,), (8,)], "register": [(1,), (2,)]}, [("dim0", 16)])
    r = equivalent(A, B)
    assert r.holds and r.explanation == "every basis agrees"


def test_out_sizes_count():
    """dim0 of 16 and dim0 of 64 with the same bases are different layouts: (dim0=16) is in one range only."""
    B = LinearLayout({"register": [(1,), (2,)], "lane": [(4,), (8,)]}, [("dim0", 64)])
    r = equivalent(A, B)
    assert r.fails
    assert r.counterexample.to_dict() == {"kind": "out_of_range", "coordinate": {"dim0": 16}, "in_range": [False, True]}
    assert r.explanation == ("out-dim 'dim0' has size 16 in the first layout and 64 in the second: coordinate "
                             "(dim0=16) is in one out range only")
    z = r.verdicts["z3"].counterexample
    assert z.kind == "out_of_range" and z.replay() and 16 <= z.data["coordinate"]["dim0"] < 64
    assert not z.recompute({"coordinate": {"dim0": 3}, "in_range": [False, True]})       # inside both


def test_size_one_dims_do_not_count():
    """A distributed layout with or without `block: []`, with or without a size-1 out-dim."""
    B = LinearLayout({"register": [(1, 0), (2, 0)], "lane": [(4, 0), (8, 0)], "warp": [], "block": []},
                     [("dim0", 16), ("dim1", 1)])
    r = equivalent(A, B)
    assert r.holds and r.verdicts["f2"].certificate is not None
    assert equivalent(B, A).holds


def test_a_dim_only_one_layout_names_matters():
    wide = LinearLayout({"register": [(1, 0), (2, 0)], "lane": [(4, 0), (8, 0)]}, [("dim0", 16), ("dim1", 2)])
    r = equivalent(A, wide)
    assert r.counterexample.to_dict() == {"kind": "out_of_range", "coordinate": {"dim0": 0, "dim1": 1},
                                          "in_range": [False, True]}
    assert r.explanation.startswith("out-dim 'dim1' has size 1 in the first layout and 2 in the second")
    shared = LinearLayout({"offset": [(1,)]}, [("dim0", 16)])
    r = equivalent(A, shared)
    assert r.counterexample.to_dict() == {"kind": "mismatch", "index": {"register": 1, "lane": 0, "offset": 0},
                                          "images": [{"dim0": 1}, None]}
    other_dim = LinearLayout({"register": [(1,), (2,)], "lane": [(4,), (8,)]}, [("dim1", 16)])
    r = equivalent(A, other_dim)
    assert r.fails and r.counterexample.kind == "out_of_range" and r.verdicts["z3"].counterexample.replay()


def test_first_differing_basis_is_the_witness():
    B = LinearLayout({"register": [(1,), (2,)], "lane": [(4,), (12,)]}, [("dim0", 16)])
    r = equivalent(A, B)
    assert r.counterexample.to_dict() == {"kind": "mismatch", "index": {"register": 0, "lane": 2},
                                          "images": [{"dim0": 8}, {"dim0": 12}]}
    assert r.explanation == "basis lane=2 differs: (dim0=8) vs (dim0=12)"
    z = r.verdicts["z3"].counterexample
    assert z.replay() and z.data["index"]["lane"] & 2


def test_index_in_one_layout_only():
    B = LinearLayout({"register": [(1,), (2,)], "lane": [(4,), (8,), (0,)]}, [("dim0", 16)])
    r = equivalent(A, B)
    assert r.counterexample.data == {"index": {"register": 0, "lane": 4}, "images": [None, {"dim0": 0}]}
    assert r.verdicts["z3"].counterexample.data["images"][0] is None


