"""A seeded slice of the robustness fuzz campaign (tools/fuzz.py, docs/robustness.md): every input over
the five surfaces (spec files, encoding files, attribute text, TTGIR, API) is handled with a result or one
located line and exit 2; no traceback, hang, exit 3, multi-line or location-less message."""

import importlib.util
import pathlib

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
