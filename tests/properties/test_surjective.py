import pytest

from checker.errors import LayoutError
from checker.layout import LinearLayout
from checker.properties.surjective import surjective
from checker.verdict import Engines

# blocked [2,2]/[8,4]/[1,2] on 8x8 (README example): lane 16 and warp 1 broadcast.
BLOCKED_8x8 = LinearLayout({"register": [(0, 1), (1, 0)], "lane": [(0, 2), (0, 4), (2, 0), (4, 0), (0, 0)],
                            "warp": [(0, 0)], "block": []}, [("dim0", 8), ("dim1", 8)])
# one lane basis short: dim0 bit 2 is never reached.
SHORT = LinearLayout({"register": [(0, 1), (1, 0)], "lane": [(0, 2), (0, 4), (2, 0), (0, 0)]},
                     [("dim0", 8), ("dim1", 8)])


def test_holds_with_broadcast():
    r = surjective(BLOCKED_8x8)
    assert r.holds and r.counterexample is None
    assert r.details == {"rank": 6, "in_bits": 8, "out_bits": 6, "shape": {"dim0": 8, "dim1": 8}}
    assert set(r.verdicts) == {"f2", "z3"}


def test_missing_coordinate_and_certificate():
    r = surjective(SHORT)
    assert r.fails
    assert r.counterexample.to_dict() == {"kind": "missing_coordinate", "coordinate": {"dim0": 4, "dim1": 0},
                                          "certificate": 4}
    assert r.explanation == ("coordinate (dim0=4, dim1=0) is held by no hardware index: the bases span only 5 "
                             "of the 6 coordinate bits of the shape (dim0=8, dim1=8)")
    z = r.verdicts["z3"].counterexample
    assert z.replay() and z.data["coordinate"]["dim0"] & 4


def test_shape_larger_than_layout():
    r = surjective(BLOCKED_8x8, [16, 8])
    assert r.fails and r.counterexample.data["coordinate"] == {"dim0": 8, "dim1": 0}


def test_shape_smaller_than_layout_ignores_the_rest():
    assert surjective(SHORT, [4, 8]).holds
    assert surjective(SHORT, {"dim0": 8, "dim1": 1}).fails


def test_forged_witness_does_not_replay():
    cx = surjective(SHORT).counterexample
    assert not cx.recompute({"coordinate": {"dim0": 2, "dim1": 0}, "certificate": 4})  # held by lane=4
    assert not cx.recompute({"coordinate": {"dim0": 4, "dim1": 0}, "certificate": 1})  # w does not separate


def test_bad_shape():
    with pytest.raises(LayoutError):
        surjective(SHORT, [8, 6])
    with pytest.raises(LayoutError):
        surjective(SHORT, [8])


def test_single_engines():
    assert surjective(SHORT, engines=Engines("f2")).verdicts.keys() == {"f2"}
    assert surjective(SHORT, engines=Engines("z3")).fails
