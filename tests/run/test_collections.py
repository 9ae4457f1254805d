"""The cyclic collector while a run reads and proves (`checker.run.verification.fewer_collections`): its first
threshold raised for the run, the caller's thresholds back afterwards, a caller's own choice left alone."""

import gc
import os

import pytest

import checker
from checker.run import verification


@pytest.fixture
def thresholds():
    old = gc.get_threshold()
    yield
    gc.set_threshold(*old)


def test_raised_inside_and_restored(thresholds):
    gc.set_threshold(700, 10, 10)
    seen = []

    @verification.fewer_collections()
    def inside():
        seen.append(gc.get_threshold())

    inside()
    inside()
    assert seen == [(verification.RUN_GC_THRESHOLD, 10, 10)] * 2
    assert gc.get_threshold() == (700, 10, 10)


def test_restored_when_the_run_raises(thresholds):
    gc.set_threshold(500, 7, 3)
    with pytest.raises(checker.CheckerError), verification.fewer_collections():
        assert gc.get_threshold() == (verification.RUN_GC_THRESHOLD, 7, 3)
        raise checker.CheckerError("bad input")
    assert gc.get_threshold() == (500, 7, 3)


@pytest.mark.parametrize("first", [0, 100_000])
def test_a_callers_choice_is_left_alone(thresholds, first):
    gc.set_threshold(first, 10, 10)
    with verification.fewer_collections():
        assert gc.get_threshold() == (first, 10, 10)
    assert gc.get_threshold() == (first, 10, 10)


def test_verify_leaves_the_thresholds_as_it_found_them(thresholds):
    gc.set_threshold(700, 10, 10)
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    report = checker.verify(os.path.join(root, "specs", "kernels", "softmax.cuda80.ttgir"))
    assert report["summary"]["checks"] == 8
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize("kernel", ["softmax.cuda80", "matmul.cuda90", "attention.gfx942"])
def test_a_run_leaves_no_cyclic_garbage(kernel):
    """What a verify builds and drops (the module's operations and types, its control flow, the analyses' tables)
    is freed by reference counting as the run ends: no reference cycle is left for the cyclic collector, whose
    next collection would walk it (a nested function calling itself was one, holding the whole module)."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "specs", "kernels", f"{kernel}.ttgir")
    checker.verify(path)                # caches filled: they are kept, not garbage
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        checker.verify(path)
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []


def test_verify_reads_and_proves_in_one_scope(thresholds, monkeypatch):
    """checker.verify raises the threshold once, around reading and proving: the scopes of load_inputs and
    verify_inputs find it raised and leave it, so no threshold is put back (and no collection runs) between them."""
    gc.set_threshold(700, 10, 10)
    set_to = []
    real = gc.set_threshold
    monkeypatch.setattr(gc, "set_threshold", lambda *t: (set_to.append(t), real(*t)))
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    checker.verify(os.path.join(root, "specs", "kernels", "softmax.cuda80.ttgir"))
    assert set_to == [(verification.RUN_GC_THRESHOLD, 10, 10), (700, 10, 10)]
