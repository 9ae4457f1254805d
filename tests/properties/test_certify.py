"""checker.properties.certify: the certificates the GF(2) engine builds, by value (their checking, tampering and
soundness on random layouts: tests/test_certificate.py)."""

import pytest

from checker.errors import InternalError
from checker.layout import LinearLayout
from checker.properties import certify


def test_left_inverse_rows_by_value():
    # columns 0b11 and 0b10: row 0 = 0b01 (reads bit 0), row 1 = 0b11 (bit 0 XOR bit 1)
    rows = certify.left_inverse_rows([0b11, 0b10])
    assert rows == [0b01, 0b11]
    assert [[bin(w & c).count("1") % 2 for c in (0b11, 0b10)] for w in rows] == [[1, 0], [0, 1]]
    assert certify.left_inverse_rows([1, 2, 4]) == [1, 2, 4]
    with pytest.raises(InternalError, match="the columns are dependent"):
        certify.left_inverse_rows([0b11, 0b01, 0b10])


def test_echelon_by_value():
    # 0b10 = 0b11 XOR 0b01: its row of T (0b111) says so, its row of E vanishes
    assert certify.echelon([0b11, 0b01, 0b10]) == ([0b001, 0b010, 0b111], [0b11, 0b01, 0])
    assert certify.echelon([]) == ([], [])
    c = certify.rank_preserved([0b11, 0b01, 0b10], 0b01)        # masked: [1, 1, 0], rank 1 < 2
    assert (c.kind, c.claim, c.proof) == ("rank_preserved", {"vectors": [3, 1, 2], "mask": 1},
                                          {"transform": [1, 3, 4], "echelon": [1, 0, 0]})
    assert not c.holds() and certify.rank_preserved([0b11, 0b01, 0b10], 0b11).holds()
    assert certify.trivial_intersection([0b01], [0b10]).holds()
    assert not certify.trivial_intersection([0b01, 0b10], [0b11]).holds()


L = LinearLayout([("register", [(1,), (2,)]), ("lane", [(0,), (4,)])], [("dim0", 8)])


def test_injective_keeps_the_columns_it_is_asked_to():
    c = certify.injective(L, True)                       # the zero lane basis skipped (broadcast)
    assert (c.kind, c.claim, c.proof) == ("left_inverse", {"layout": L.to_dict(), "skip_zero": True},
                                          {"inverse": [1, 2, 4]})
    assert c.holds()
    c = certify.injective(L, False, {"lane": [0]})       # the same column left out by name
    assert c.claim["dropped"] == {"lane": [0]} and c.proof == {"inverse": [1, 2, 4]} and c.holds()
    with pytest.raises(InternalError, match="dependent"):
        certify.injective(L, False)                       # a zero column: L is not injective


def test_surjective_spans_the_box():
    S = LinearLayout([("register", [(2,), (1,)])], [("dim0", 4)])
    c = certify.surjective(S, {"dim0": 4})
    assert (c.kind, c.claim["shape"], c.proof) == ("spanning", {"dim0": 4}, {"combinations": [2, 1]}) and c.holds()
    assert certify.surjective(S, {"dim0": 2}).proof == {"combinations": [2]}     # only coordinate bit 0
    with pytest.raises(InternalError, match="outside the span"):
        certify.surjective(LinearLayout([("register", [(1,), (1,)])], [("dim0", 4)]), {"dim0": 4})


def test_equivalent_conversion_and_all_of():
    c = certify.equivalent(L, L)
    assert (c.kind, c.proof) == ("equal_columns", {"columns": 4}) and c.holds()
    src = LinearLayout([("register", [(1,), (2,)]), ("lane", [(4,)])], [("dim0", 8)])
    dst = LinearLayout([("register", [(2,)]), ("lane", [(5,)])], [("dim0", 8)])
    c = certify.conversion(src, dst, ())
    # dst's register column 2 is src's column 1; its lane column 5 = src's columns 0 and 2
    assert (c.kind, c.claim["fixed"], c.proof) == ("combinations", [], {"combinations": [0b010, 0b101]})
    assert c.holds()
    whole = certify.all_of(c, certify.injective(L, True))
    assert whole.kind == "all_of" and [p.kind for p in whole.proof["parts"]] == ["combinations", "left_inverse"]
    assert whole.holds()
    assert certify.all_of() is None and certify.all_of(c, None) is None
