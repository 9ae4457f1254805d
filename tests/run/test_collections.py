"""The cyclic collector while a run reads and proves (`checker.run.verification.collector_paused`): paused for the
run, resumed afterwards, a caller's disabled collector left alone; and a run leaves no reference cycle for it."""

import gc
import os

import pytest

import checker
from checker.run import verification


@pytest.fixture
def collector():
    enabled = gc.isenabled()
    yield
    (gc.enable if enabled else gc.disable)()


def test_paused_inside_and_resumed(collector):
    gc.enable()
    seen = []

    @verification.collector_paused()
    def inside():
        seen.append(gc.isenabled())

    inside()
    inside()
    assert seen == [False, False] and gc.isenabled()


def test_resumed_when_the_run_raises(collector):
    gc.enable()
    with pytest.raises(checker.CheckerError), verification.collector_paused():
        assert not gc.isenabled()
        raise checker.CheckerError("bad input")
    assert gc.isenabled()


def test_a_callers_disabled_collector_is_left_alone(collector):
    gc.disable()
    with verification.collector_paused():
        with verification.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_nested_and_recursive_scopes_resume_once_at_the_outermost(collector):
    gc.enable()
    states = []

    @verification.collector_paused()
    def down(n):
        states.append(gc.isenabled())
        if n:
            down(n - 1)
        states.append(gc.isenabled())

    down(2)
    assert states == [False] * 6 and gc.isenabled()


def test_verify_leaves_the_collector_as_it_found_it(collector):
    gc.enable()
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    report = checker.verify(os.path.join(root, "specs", "kernels", "softmax.cuda80.ttgir"))
    assert report["summary"]["checks"] == 8
    assert gc.isenabled()


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


def test_verify_reads_and_proves_in_one_scope(collector, monkeypatch):
    """checker.verify pauses the collector once, around reading and proving: the scopes of load_inputs and
    verify_inputs find it paused and leave it, so it is not resumed (and no collection runs) between them."""
    gc.enable()
    calls = []
    real_disable, real_enable = gc.disable, gc.enable
    monkeypatch.setattr(gc, "disable", lambda: (calls.append("disable"), real_disable()))
    monkeypatch.setattr(gc, "enable", lambda: (calls.append("enable"), real_enable()))
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    checker.verify(os.path.join(root, "specs", "kernels", "softmax.cuda80.ttgir"))
    assert calls == ["disable", "enable"]
