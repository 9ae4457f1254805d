"""A seeded slice of the robustness fuzz campaign (tools/fuzz.py, docs/robustness.md): every input over
the five surfaces (spec files, encoding files, attribute text, TTGIR, API) is handled with a result or one
located line and exit 2; no traceback, hang, exit 3, multi-line or location-less message."""

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _fuzz():
    spec = importlib.util.spec_from_file_location("layoutcheck_fuzz", ROOT / "tools" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_seeded_slice_of_the_fuzz_campaign_finds_nothing():
    fuzz = _fuzz()
    result = fuzz.campaign(count=250, seed=11, jobs=1)
    assert result["inputs"] == 250 and set(result["by_surface"]) == set(fuzz.SURFACES)
    assert result["failures"] == []


def test_inputs_replay_from_their_index():
    fuzz = _fuzz()
    seeds = fuzz._seeds()
    for i in range(10):
        surface = fuzz._surface(i, fuzz.SURFACES)
        a = fuzz.make_input(fuzz._rng(3, i), surface, seeds)
        b = fuzz.make_input(fuzz._rng(3, i), surface, seeds)
        assert repr(a) == repr(b)


def test_run_programs_cover_listeners_signals_exits_and_nothing_compiled():
    """The ``run`` surface's programs: what each does decides the status `run` must give (tools/fuzz.py)."""
    fuzz = _fuzz()
    inputs = [fuzz.make_input(fuzz._rng(11, i), "run", {}) for i in range(60)]
    bodies = [inp["files"]["prog.py"].decode().split("own listener fails\")\n", 1)[1] for inp in inputs]
    expects = [inp["expect"] for inp in inputs]
    assert any("listener = listener" in b and e["listener_calls"] for b, e in zip(bodies, expects))
    assert any("listener = raising" in b and e["status"] == 1 for b, e in zip(bodies, expects))
    assert any("signal.SIGKILL" in b and e["status"] == 137 for b, e in zip(bodies, expects))
    assert any("signal.SIGINT" in b and e["status"] == 130 for b, e in zip(bodies, expects))
    assert any("os._exit(0)" in b and e["kernels"] for b, e in zip(bodies, expects))
    assert any("compile_one(" not in b
               and e == {"status": 1, "kernels": 0, "listener_calls": None, "says_nothing_verified": True}
               for b, e in zip(bodies, expects))
    assert all(inp["argv"][:2] == ["run", "--"] for inp in inputs)


def test_a_seeded_slice_of_run_programs_finds_nothing(tmp_path, monkeypatch):
    """Each input is ``layoutcheck run`` of a program compiling on CPU (a few seconds each): a small slice."""
    pytest.importorskip("triton")
    monkeypatch.setenv("LAYOUTCHECK_FUZZ_TRITON_CACHE", str(tmp_path / "cache"))
    result = _fuzz().campaign(count=8, seed=11, jobs=1, surfaces=("run",))
    assert result["inputs"] == 8 and result["failures"] == []

