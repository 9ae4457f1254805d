"""Scale-out end to end: `verify --executor` on the command line, and the Ray executor (byte-identical
report.json to --jobs 1; skipped when Ray is not installed). Its parts have their own tests: checker/run/runner.py's
sharing of identical checks in tests/test_runner.py, checker/run/executors.py's in tests/test_executors.py."""

import pytest

import checker
from checker.reports.json_report import render_json
from checker.run.verification import load_inputs, verify_inputs

from .conftest import ROOT, SPECS

KERNEL = str(ROOT / "specs" / "kernels" / "matmul.cuda80.ttgir")
NEGATIVES = str(ROOT / "specs" / "negatives.yaml")


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
    local = verify_inputs(inputs, jobs=1, engine="both")
    on_ray = verify_inputs(inputs, engine="both", executor="ray")
    assert len(on_ray.report["checks"]) == len(inputs.obligations) > 1500
    assert render_json(on_ray.report) == render_json(local.report)
    assert checker.verify(KERNEL, executor="ray") == checker.verify(KERNEL)
