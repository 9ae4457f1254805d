"""Shared work and scale-out: identical checks proved once, Triton figures on request, compact report.json,
and the Ray executor (byte-identical report.json to --jobs 1; skipped when Ray is not installed)."""

import json

import pytest

import checker
from checker import runner
from checker.errors import CheckerError
from checker.executors import MAX_BATCH, batches, parse
from checker.reports.json_report import PRETTY_MAX_CHECKS, render_json
from checker.verification import check, load_inputs

from .conftest import ROOT, SPECS

KERNEL = str(ROOT / "specs" / "kernels" / "matmul.cuda80.ttgir")
NEGATIVES = str(ROOT / "specs" / "negatives.yaml")

MMA = '"#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"'

TWICE = """\
version: 1
encodings:
  blk: {kind: blocked, size_per_thread: [1, 4], threads_per_warp: [4, 8], warps_per_cta: [4, 1], order: [1, 0]}
checks:
  - id: a
    prove: conversion
    src: "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
    dst: blk
    shape: [64, 64]
  - id: same-as-a
    prove: conversion
    src: "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
    dst: blk
    shape: [64, 64]
    expect_level: register
  - id: a-with-triton
    prove: conversion
    src: "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
    dst: blk
    shape: [64, 64]
    triton: true
"""


def _spec(tmp_path, text=TWICE):
    path = tmp_path / "twice.yaml"
    path.write_text(text)
    return str(path)


def test_identical_checks_are_proved_once_and_keep_their_own_records(tmp_path, monkeypatch):
    inputs = load_inputs([_spec(tmp_path)])
    done = check(inputs, jobs=1)
    a, same, tri = done.report["checks"]
    assert (a["id"], same["id"]) == ("a", "same-as-a")
    assert a["passed"] and a["details"]["level"] == "cta"
    assert not same["passed"] and same["failure"] == "expected level register, got cta" and "layouts" in same
    assert same["details"] == a["details"] and "triton_class" not in a["details"]
    assert tri["details"]["triton_class"] == "shared_memory"          # asked for: another proof
    assert done.timings["checks"]["same-as-a"] == {"total": 0.0, "engines": {}, "same_as": "a"}
    assert "same_as" not in done.timings["checks"]["a-with-triton"]
    monkeypatch.setattr(runner, "proof_key", lambda ob: None)        # every check proved on its own
    alone = check(inputs, jobs=1)
    assert render_json(alone.report) == render_json(done.report)


def test_sharing_keeps_the_report_of_specs_and_kernels(monkeypatch):
    inputs = load_inputs([NEGATIVES, KERNEL])
    shared = render_json(check(inputs, jobs=1, layouts="all").report)
    monkeypatch.setattr(runner, "proof_key", lambda ob: None)
    assert render_json(check(inputs, jobs=1, layouts="all").report) == shared


def test_triton_figures_on_request():
    plain = checker.verify(KERNEL)
    convert = next(c for c in plain["checks"] if c["property"] == "conversion")
    assert convert["details"]["triton_lowering"] == "shared_memory"        # TTGIR conversions ask for it
    bank = [c for c in plain["checks"] if c["property"] == "bank_conflict_free"]
    assert bank and all("triton_conflicts" not in c["details"] for c in bank)
    asked = checker.verify(KERNEL, triton_figures=True)
    bank = [c for c in asked["checks"] if c["property"] == "bank_conflict_free"]
    assert all("triton_conflicts" in c["details"] and c["parameters"]["triton"] for c in bank)


def test_spec_key_triton_applies_to_conversion_and_bank_checks_only(tmp_path):
    bad = TWICE.replace("    triton: true\n", "").replace("  - id: a\n    prove: conversion\n    src: " + MMA + "\n    dst: blk\n",
                                                          "  - id: a\n    prove: surjective\n    layout: blk\n"
                                                          "    triton: true\n", 1)
    with pytest.raises(CheckerError, match="applies to prove: conversion, bank_conflict_free only"):
        load_inputs([_spec(tmp_path, bad)])


def test_report_json_is_compact_when_large():
    small = {"schema_version": 1, "summary": {}, "checks": [{"id": "a", "v": [1, 2]}]}
    assert render_json(small) == json.dumps(small, indent=2) + "\n"
    big = {"schema_version": 1, "summary": {"n": 1}, "checks": [{"id": str(i)} for i in range(PRETTY_MAX_CHECKS + 1)]}
    text = render_json(big)
    assert json.loads(text) == big and text.count("\n") == PRETTY_MAX_CHECKS + 3 and "  " not in text
    assert render_json(big, pretty=True) == json.dumps(big, indent=2) + "\n"
    assert json.loads(render_json(small, pretty=False)) == small


def test_batches_cover_every_task_in_order():
    assert batches(10, 2) == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    cut = batches(100_000, 8)
    assert cut[0] == (0, MAX_BATCH) and cut[-1][1] == 100_000
    assert all(a == b for (_, a), (b, _) in zip(cut, cut[1:]))
    assert parse("ray") is None and parse("ray://head:10001") == "ray://head:10001"
    with pytest.raises(CheckerError, match="--executor"):
        parse("dask")


def test_cli_rejects_an_unknown_executor(verify):
    rc, _, err, _ = verify("specs/negatives.yaml", "--executor", "dask", formats="json", jobs=1)
    assert rc == 2 and "--executor" in err


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    if started:
        ray.shutdown()


def test_ray_executor_report_is_byte_identical_to_jobs_1(local_ray, tmp_path):
    paths = [str(SPECS / "sweep_blocked.yaml"), NEGATIVES, KERNEL]
    inputs = load_inputs(paths)
    local = check(inputs, jobs=1, engine="both")
    on_ray = check(inputs, engine="both", executor="ray")
    assert len(on_ray.report["checks"]) == len(inputs.obligations) > 1500
    assert render_json(on_ray.report) == render_json(local.report)
    assert checker.verify(KERNEL, executor="ray") == checker.verify(KERNEL)
