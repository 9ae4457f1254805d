"""Every lowering case computed by Triton 3.9 (tests/conformance/lowering.jsonl).

A case Triton answered must lower to exactly Triton's bases and out sizes.
A case Triton rejected (exception or abort) must be rejected by layoutcheck
with an EncodingError / CheckerError, never a crash.
"""

import pytest

from checker.errors import CheckerError
from checker.syntax.gluon import GLUON_CLASSES, from_gluon
from checker.syntax.gluon import lower_gluon as lower

from ..conftest import load_jsonl

CASES = load_jsonl("lowering.jsonl")

# Cases that are not a plain LinearLayout comparison: Triton has no
# LinearLayout for them (padded shared, rotating shared) although the input
# is valid; they are covered by their family's own tests.
NO_TRITON_LL = {"padded_shared", "amd_rotating_shared"}


def _spec_supported(spec):
    """The class and every nested layout (parent, partition_layout) have a Gluon converter."""
    if spec["class"] not in GLUON_CLASSES:
        return False
    params = spec.get("params", {})
    return all(_spec_supported(params[k]) for k in ("parent", "partition_layout") if k in params)


def _supported(case):
    return _spec_supported(case["layout"])


def _ids(cases):
    return [c["id"] for c in cases]


ACCEPTED = [c for c in CASES if c["error"] is None and c["family"] not in NO_TRITON_LL]
REJECTED = [c for c in CASES if c["error"] is not None and c["family"] not in NO_TRITON_LL]


def as_triton_json(L):
    return {"in": {k: [list(b) for b in v] for k, v in L.bases.items()},
            "out_dims": list(L.out_dims), "shape": [s for _, s in L.out_dim_sizes]}


@pytest.mark.parametrize("case", ACCEPTED, ids=_ids(ACCEPTED))
def test_lowering_matches_triton(case):
    if not _supported(case):
        pytest.skip(f"{case['layout']['class']} not wired to the Gluon adapter")
    enc = from_gluon(case["layout"])
    L = lower(enc, case["shape"])
    exp = case["linear_layout"]
    assert list(L.in_dims) == exp["in_dims"]
    assert as_triton_json(L) == {"in": exp["in"], "out_dims": exp["out_dims"], "shape": exp["shape"]}


@pytest.mark.parametrize("case", REJECTED, ids=_ids(REJECTED))
def test_rejected_like_triton(case):
    if not _supported(case):
        pytest.skip(f"{case['layout']['class']} not wired to the Gluon adapter")
    with pytest.raises(CheckerError) as info:
        enc = from_gluon(case["layout"])
        lower(enc, case["shape"])
    assert str(info.value).strip(), "the rejection must carry a message"
