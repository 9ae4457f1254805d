"""checker.memo: values shared within one run's memo, computed afresh outside one."""

from pathlib import Path

import checker
from checker import memo
from checker.properties import reduction
from checker.versions import using

KERNELS = Path(__file__).resolve().parent.parent / "specs" / "kernels"


def _counter():
    calls = []

    def compute():
        calls.append(1)
        return len(calls)
    return calls, compute


def test_outside_a_memo_every_call_computes():
    calls, compute = _counter()
    assert [memo.shared("k", 1, compute) for _ in range(3)] == [1, 2, 3]


def test_inside_a_memo_a_key_computes_once_and_the_memo_keeps_it_between_openings():
    calls, compute = _counter()
    m = memo.Memo()
    with m:
        assert memo.shared("k", 1, compute) == 1
        assert memo.shared("k", 1, compute) == 1
        assert memo.shared("k", 2, compute) == 2            # another key
        assert memo.shared("other", 1, compute) == 3        # another kind
    assert memo.shared("k", 1, compute) == 4                # closed: computed
    with m:
        assert memo.shared("k", 1, compute) == 1            # opened again: the value kept
    with memo.Memo():
        assert memo.shared("k", 1, compute) == 5            # a new run's memo: computed afresh
    assert len(calls) == 5


def test_the_triton_version_in_force_is_part_of_the_key():
    calls, compute = _counter()
    with memo.Memo():
        with using("3.8"):
            assert memo.shared("k", 1, compute) == 1
        with using("3.9"):
            assert memo.shared("k", 1, compute) == 2
        with using("3.8"):
            assert memo.shared("k", 1, compute) == 1


def test_a_full_memo_starts_over(monkeypatch):
    monkeypatch.setattr(memo, "LIMIT", 2)
    calls, compute = _counter()
    with memo.Memo() as m:
        memo.shared("k", 1, compute)
        memo.shared("k", 2, compute)
        memo.shared("k", 3, compute)                        # full: cleared, then kept
        assert len(m.values) == 1
        assert memo.shared("k", 3, compute) == 3
        assert memo.shared("k", 1, compute) == 4


def test_a_kernels_reduction_rounds_are_computed_once_for_its_budget_and_its_check(monkeypatch):
    """softmax reduces one layout along one axis twice (max, then sum): the shared-memory budget and the two
    reduction checks read the same rounds, computed once per run; every run computes them again."""
    seen = []
    real = reduction.cross_warp_rounds
    monkeypatch.setattr(reduction, "cross_warp_rounds", lambda L, axis: seen.append((L, axis)) or real(L, axis))
    text = (KERNELS / "softmax.cuda80.ttgir").read_text()
    report = checker.verify(text)
    checks = [c for c in report["checks"] if c["property"] == "reduction"]
    assert [c["details"]["cross_warp_rounds"] for c in checks] == [1, 1]
    assert len(seen) == 1
    checker.verify(text)
    assert len(seen) == 2


def test_a_kernels_shared_memory_plans_are_made_once_per_distinct_side(monkeypatch):
    """matmul's buffers are planned by their bank checks, their data movement and their access checks alike:
    each distinct (R, S, bits, direction, access, hardware) is planned once per run, where without the memo
    the same sides are planned again."""
    from checker.properties.smem import plan as sp
    made = []
    private = sp._plan
    monkeypatch.setattr(sp, "_plan", lambda *a: made.append(a) or private(*a))
    text = (KERNELS / "matmul.cuda80.ttgir").read_text()
    checker.verify(text)
    shared = list(made)
    assert shared and len(shared) == len(set(shared))
    made.clear()
    monkeypatch.setattr(memo, "shared", lambda kind, key, compute: compute())
    checker.verify(text)
    assert set(made) == set(shared) and len(made) > len(shared)
