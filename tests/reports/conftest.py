"""Shared by the renderer tests (one file per module of checker/reports): hand-made reports (`record`,
`report`) and real ones, built by `checker.verify` from the repository root so that their paths are the
ones `layoutcheck verify` writes."""

import os
import pathlib

import pytest

import checker
from checker.reports.json_report import build_report
from checker.run.runner import Outcome

ROOT = pathlib.Path(__file__).resolve().parents[2]
FAILING = "tests/verify/specs/failing.yaml"              # six checks, five of them failing, each another way
WARNED = "specs/kernels/matmul.gfx942.ttgir"             # 88 checks, three 2-way ds_write conflicts (warnings)
CONVERTED = "specs/kernels/matmul.cuda80.ttgir"          # 77 checks, one cta-level ttg.convert_layout (a note)
SKIPPED = "tests/corpus/gl_multicta_reduce.cuda90.ttgir"  # one conversion_cost check the models do not cover
# a TTGIR module whose first alias is rejected: two problems of the input (exit 2), the rest checked
BAD_ALIAS = """\
#blocked = #ttg.blocked<{sizePerThread = [3, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#good = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", \
"ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%a: tensor<32x32xf16, #blocked>, %b: tensor<32x32xf16, #good>) {
    tt.return
  }
}
"""


def record(id, file="specs/a.yaml", prop="surjective", passed=True, witness=None):
    return {"id": id, "property": prop, "verdict": "holds" if passed else "fails", "expect": "holds",
            "passed": passed, "failure": None if passed else "expected holds, got fails",
            "counterexample": witness, "explanation": "why", "severity": "error", "source": {"file": file, "line": 3}}


def report(*records):
    return build_report([Outcome(r, {"total": 0.0, "engines": {}}) for r in records], engine="both",
                        timeout_ms=10)


def verified(*inputs, **options):
    """checker.verify(inputs) run from the repository root."""
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        return checker.verify(list(inputs), **options)
    finally:
        os.chdir(here)


@pytest.fixture(scope="session")
def failing_report():
    return verified(FAILING)


@pytest.fixture(scope="session")
def warned_report():
    return verified(WARNED)


@pytest.fixture(scope="session")
def converted_report():
    return verified(CONVERTED)


@pytest.fixture(scope="session")
def skipped_report():
    return verified(SKIPPED)
