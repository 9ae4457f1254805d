"""The warp shuffles and redux instructions the `reduction` check counts for each tt.reduce of the NVIDIA corpus
kernels equal those in Triton 3.9's PTX at that line (tests/corpus/shuffles.json, tools/shuffle_counts.py)."""

import json

import pytest

import checker

from .conftest import ROOT

CORPUS = ROOT / "tests" / "corpus"
COUNTS = json.loads((CORPUS / "shuffles.json").read_text())


def test_every_nvidia_kernel_with_a_reduction_is_counted():
    """326 reductions in 50 kernels; the model states the count for all but the redux over part of a warp."""
    assert len(COUNTS) == 50
    assert sum(len(lines) for lines in COUNTS.values()) == 326
    assert {name.split(".")[1] for name in COUNTS} == {"cuda80", "cuda90", "cuda100"}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_shuffles_and_redux_per_reduction_are_tritons(name):
    report = checker.verify((CORPUS / name).read_text(), engine="f2")
    checks = {str(c["source"]["line"]): c["details"] for c in report["checks"]
              if c["property"] == "reduction" and c["source"]["op"] == "tt.reduce"}
    assert set(checks) == set(COUNTS[name])
    # a redux over part of a warp is Triton's choice by rules the model leaves out: no counts are given there
    counted = {line: d for line, d in checks.items() if "shuffles_per_thread" in d}
    assert all(d["redux_per_thread"] is not None for d in counted.values())
    ours = {line: {"shfl": d["shuffles_per_thread"], "redux": d["redux_per_thread"]} for line, d in counted.items()}
    theirs = {line: {"shfl": COUNTS[name][line].get("shfl", 0), "redux": COUNTS[name][line].get("redux", 0)}
              for line in counted}
    assert ours == theirs
