"""Differential cases: random encodings lowered by a real Triton 3.9 (tools/triton_oracle.py).

The files here were produced by `tools/triton_oracle.py` with `triton==3.9.0` on a CPU
(seeds 11-13 for lowering). They widen the sample of tests/conformance: the same rules
apply (Triton's bases exactly, or a clean rejection where Triton raised or aborted).
"""

import pytest

from checker.errors import CheckerError
from checker.syntax.gluon import from_gluon
from checker.syntax.gluon import lower_gluon as lower

from ..conftest import load_jsonl
from .test_lowering import _supported, as_triton_json

CASES = load_jsonl("differential_lowering.jsonl")
ACCEPTED = [c for c in CASES if c["error"] is None]
REJECTED = [c for c in CASES if c["error"] is not None]


@pytest.mark.parametrize("case", ACCEPTED, ids=[c["id"] for c in ACCEPTED])
def test_lowering_matches_triton(case):
    if not _supported(case):
        pytest.skip(f"{case['layout']['class']} not wired to the Gluon adapter")
    L = lower(from_gluon(case["layout"]), case["shape"])
    exp = case["linear_layout"]
    got = as_triton_json(L)
    assert list(L.in_dims) == exp["in_dims"]
    assert got["in"] == exp["in"] and got["shape"] == exp["shape"]


@pytest.mark.parametrize("case", REJECTED, ids=[c["id"] for c in REJECTED])
def test_rejected_like_triton(case):
    if not _supported(case):
        pytest.skip(f"{case['layout']['class']} not wired to the Gluon adapter")
    with pytest.raises(CheckerError):
        lower(from_gluon(case["layout"]), case["shape"])
