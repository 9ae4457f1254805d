import json

import pytest

from checker import parse_encoding, prove
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
    r = prove.conversion(B1, B2, [16, 16], triton=True)
    assert r.holds and r.details["level"] == "cta" and r.details["triton_trivial"] is False
    assert prove.conversion(B1, B1, [16, 16], triton=True).details["triton_trivial"] is True
    assert "triton_trivial" not in prove.conversion(B1, B2, [16, 16]).details     # only on request
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


def test_bank_conflict_free_takes_the_dtype_names_specs_use():
    R = parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
                       "order = [1, 0]}>")
    S = parse_encoding("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>")
    by_name = prove.bank_conflict_free(R, S, [64, 64], "f16")
    assert by_name.details == prove.bank_conflict_free(R, S, [64, 64], dtype="bf16").details
    assert by_name.details == prove.bank_conflict_free(R, S, [64, 64], dtype_bits=16).details
    assert by_name.details["mnemonic"] == "STS.128" and by_name.details["conflicts"] == 1
    with pytest.raises(CheckerError, match="dtype 'f32' and dtype_bits 16 disagree"):
        prove.bank_conflict_free(R, S, [64, 64], "f32", dtype_bits=16)
    with pytest.raises(CheckerError, match="unknown dtype 'half'"):
        prove.bank_conflict_free(R, S, [64, 64], "half")
