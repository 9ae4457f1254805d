import pytest

from checker.errors import LayoutError
from checker.layout import LinearLayout
from checker.properties.equivalence import equivalent

A = LinearLayout({"register": [(1,), (2,)], "lane": [(4,), (8,)]}, [("dim0", 16)])


def test_same_function_other_order_and_size():
    B = LinearLayout({"lane": [(4,), (8,)], "register": [(1,), (2,)]}, [("dim0", 32)])
    r = equivalent(A, B)
    assert r.holds and r.explanation == "every basis agrees"


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


def test_different_hardware_dims_are_not_comparable():
    with pytest.raises(LayoutError):
        equivalent(A, LinearLayout({"offset": [(1,)]}, [("dim0", 16)]))
    with pytest.raises(LayoutError):
        equivalent(A, LinearLayout({"register": [(1,), (2,)], "lane": [(4,), (8,)]}, [("dim1", 16)]))
