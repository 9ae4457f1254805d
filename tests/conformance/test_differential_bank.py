"""Triton's bank-conflict count (model="triton") on 1500 random pairs computed by Triton 3.9
(tools/triton_oracle.py bank --seed 21); cases Triton rejected are not bank questions."""

import pytest

from checker.layout import LinearLayout
from checker.properties.bank_conflicts import bank_conflict_free
from checker.verdict import Engines

from ..conftest import load_jsonl

CASES = [c for c in load_jsonl("differential_bank_conflicts.jsonl") if c["error"] is None]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_triton_count_reproduced(case):
    R = LinearLayout.from_triton_json(case["reg_linear_layout"])
    S = LinearLayout.from_triton_json(case["shared_linear_layout"])
    result = bank_conflict_free(R, S, case["element_bitwidth"], model="triton", engines=Engines("f2"))
    assert result.details["conflicts"] == case["bank_conflicts"]
    assert result.status == ("holds" if case["bank_conflicts"] == 0 else "fails")
