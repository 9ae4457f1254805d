"""The vector width layoutcheck predicts for every global access of the corpus against what Triton 3.9 emitted
(tests/verify/global_facts.json, written by tools/global_compare.py: PTX ld/st.global from Triton's LLVM IR,
AMDGCN global_/buffer_ loads and stores, per TTGIR line). The first test needs no Triton."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FACTS = ROOT / "tests" / "verify" / "global_facts.json"
sys.path.insert(0, str(ROOT / "tools"))

import global_compare  # noqa: E402


def _facts():
    return json.loads(FACTS.read_text())


def test_facts_cover_many_accesses():
    compared, agree, _ = global_compare.agreement(_facts())
    assert compared >= 100


@pytest.mark.parametrize("name", sorted(_facts()))
def test_predicted_vector_width_is_the_emitted_one(name):
    facts = _facts()[name]
    pred = global_compare.predictions(ROOT / "tests" / "corpus" / name)
    for ln, x in facts["lines"].items():
        assert int(ln) in pred, f"{name}:{ln}: no coalesced check"
        p = pred[int(ln)]
        assert p["vector_bytes"] == x["vector_bytes"], f"{name}:{ln}: prediction changed"
        if isinstance(x["emitted_bytes"], int):
            assert x["emitted_bytes"] == p["vector_bytes"], \
                f"{name}:{ln} {x['op']}: predicted {p['instruction']} ({p['vector_bytes']} B), emitted {x['emitted']}"


def test_compiling_a_fixture_with_triton_agrees():
    pytest.importorskip("triton")
    path = ROOT / "tests" / "corpus" / "tl_softmax_rows.cuda80.ttgir"
    got = global_compare.compare_one(path, "cuda80")
    lines = got["lines"]
    assert lines and all(x["emitted_bytes"] == x["vector_bytes"] == 16 for x in lines.values())
