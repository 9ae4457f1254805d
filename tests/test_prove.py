import json

import pytest

from checker import prove
from checker.encodings.blocked import BlockedEncoding
from checker.encodings.swizzled_shared import SwizzledSharedEncoding
from checker.errors import CheckerError
from checker.layout import LinearLayout

B1 = BlockedEncoding((2, 2), (8, 4), (1, 2), (1, 0))
B2 = BlockedEncoding((1, 1), (4, 8), (2, 1), (1, 0))
SW = SwizzledSharedEncoding(8, 2, 4, (1, 0))


def test_encodings_are_lowered_at_the_shape():
    assert prove.surjective(B1, [16, 16]).holds
    assert prove.injective(B1, [16, 16]).holds
    r = prove.injective(B1, [8, 8])
    assert r.fails and r.counterexample.data["indices"][0] == {"register": 0, "lane": 16, "warp": 0, "block": 0}
    assert prove.injective_up_to_broadcast(B1, [8, 8]).holds
    assert prove.equivalent(B1, prove.lowered(B1, [16, 16]), [16, 16]).holds


def test_conversion_between_encodings():
    r = prove.conversion(B1, B2, [16, 16])
    assert r.holds and r.details["level"] == "cta" and r.details["triton_trivial"] is False
    assert prove.conversion(B1, B1, [16, 16]).details["triton_trivial"] is True
    r = prove.conversion(B1, B2, [16, 16], via=SW)
    assert r.holds and r.details["claims"]["slots"] == "holds"
    assert json.dumps(r.to_dict())


def test_shared_encodings():
    assert prove.invertible(SW, [16, 16]).holds
    r = prove.fits(SW, 16, 512, shape=[16, 16])
    assert r.holds and r.details["alignment_bytes"] == 16
    assert prove.fits(SW, 16, 512, shape=[16, 16], base_bytes=1).fails


def test_engines_and_errors():
    L = prove.lowered(B1, [16, 16])
    assert prove.surjective(L, engine="f2").verdicts.keys() == {"f2"}
    assert prove.surjective(L, engine="z3").verdicts.keys() == {"z3"}
    with pytest.raises(CheckerError) as e:
        prove.surjective(B1)
    assert e.value.field == "shape"
    with pytest.raises(CheckerError):
        prove.surjective("blocked")
    assert isinstance(prove.lowered(L), LinearLayout)
