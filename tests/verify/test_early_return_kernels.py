"""Real library kernels that return early (``if ...: return``, which Triton lowers to ``cf.cond_br``) and carry values
through loops: Liger-Kernel's cross entropy (rows of ignore_index return) and vLLM's fused MoE (blocks with no token
return), compiled by Triton 3.9.0 on CPU through the libraries' own wrappers. Their dead-code pass crashed on such
modules (a name that held the region arguments was rebound by the branch loop): 53 of 364 Liger compiles and 158 of
471 vLLM/SGLang compiles went unchecked. And a bug met while a module's checks are derived is one internal-error
check at its line, not a traceback that ends the run."""

import pytest

import checker
from checker.cli import main
from checker.ttgir import builder
from tests.verify.conftest import ROOT

FIXTURES = ROOT / "tests" / "verify" / "ttgir"

# file -> (Triton 3.9.0's metadata.shared, checks derived)
KERNELS = {"liger_cross_entropy_cuda90_triton39.ttgir": (128, 16),
           "vllm_fused_moe_gfx942_triton39.ttgir": (24576, 100)}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_early_returning_kernels_are_checked_whole(name):
    report = checker.verify(str(FIXTURES / name), engine="f2")
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert (budget["details"]["kernel_bytes"], budget["details"]["exact"], budget["verdict"]) == (
        KERNELS[name][0], True, "holds")
    assert len(report["checks"]) == KERNELS[name][1]
    assert [c["id"] for c in report["checks"] if c["verdict"] == "error"] == []
    assert report["summary"]["failed"] == 0


def test_a_rule_that_raises_is_an_internal_error_at_its_op(monkeypatch, capsys, tmp_path):
    def broken(b, op):
        raise ZeroDivisionError("division by zero")
    monkeypatch.setitem(builder.OP_CHECKS, "tt.reduce", [broken])
    path = str(FIXTURES / "liger_cross_entropy_cuda90_triton39.ttgir")
    report = checker.verify(path, engine="f2")
    bad = [(c["source"]["line"], c["property"], c["verdict"], c["explanation"]) for c in report["checks"]
           if not c["passed"]]
    assert len(bad) == 2 and {b[:3] for b in bad} == {(79, "well_formed", "error"), (94, "well_formed", "error")}
    assert bad[0][3].startswith("internal error (a bug in layoutcheck): ZeroDivisionError: division by zero (at "
                                "checker/ttgir/builder.py:")      # the last frame in layoutcheck's code
    assert len(report["checks"]) == 16 - 2 + 2           # the reductions' own checks are gone, the rest stays
    assert main(["verify", path, "--engine", "f2", "--report-dir", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert "layoutcheck: internal error in 2 check(s) (the rest was checked)" in err and "Traceback" not in err


def test_a_budget_that_raises_is_an_internal_error_at_the_function(monkeypatch):
    def broken(self):
        raise TypeError("list indices must be integers or slices, not tuple")
    monkeypatch.setattr(builder.Builder, "kernel_budget", broken)
    report = checker.verify(str(FIXTURES / "vllm_fused_moe_gfx942_triton39.ttgir"), engine="f2")
    (fits,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert (fits["source"]["line"], fits["verdict"], fits["severity"]) == (32, "error", "error")
    assert fits["failure"].startswith("internal error: TypeError: list indices must be integers or slices, not tuple "
                                      "(at checker/ttgir/builder.py:")
    assert len(report["checks"]) == 100
