"""checker/run/verification.py: a verify run in-process: the inputs (paths and TTGIR text), the checks selected and
proved, `checker.verify`'s arguments checked, Triton's figures on request, and --explain's line."""

import json
import pathlib

import pytest

import checker
from checker.errors import CheckerError
from checker.run.verification import (
    explain,
    is_ttgir_text,
    load_inputs,
    names_file,
    split_inputs,
    verify_inputs,
    with_triton_figures,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNEL = str(ROOT / "specs" / "kernels" / "matmul.cuda80.ttgir")
NEGATIVES = str(ROOT / "specs" / "negatives.yaml")
SMALL = str(ROOT / "tests" / "reports" / "kernel.ttgir")
EMPTY = 'module attributes {"ttg.num-warps" = 4 : i32} {\n}\n'


def test_triton_figures_on_request():
    plain = checker.verify(KERNEL)
    convert = next(c for c in plain["checks"] if c["property"] == "conversion")
    assert convert["details"]["triton_lowering"] == "shared_memory"        # TTGIR conversions ask for it
    bank = [c for c in plain["checks"] if c["property"] == "bank_conflict_free"]
    assert bank and all("triton_conflicts" not in c["details"] for c in bank)
    asked = checker.verify(KERNEL, triton_figures=True)
    bank = [c for c in asked["checks"] if c["property"] == "bank_conflict_free"]
    assert all("triton_conflicts" in c["details"] and c["parameters"]["triton"] for c in bank)


def test_with_triton_figures_sets_the_parameter_where_the_property_has_them():
    obs = load_inputs([KERNEL]).obligations
    marked = with_triton_figures(obs)
    assert len(marked) == len(obs)
    assert {ob.property for ob in marked if ob.param("triton")} == {"bank_conflict_free", "conversion"}
    assert all(new is old for new, old in zip(marked, obs) if new.property not in ("bank_conflict_free", "conversion"))
    assert all(dict(new.params).keys() >= dict(old.params).keys() for new, old in zip(marked, obs))


def test_inputs_in_order_with_texts_last_and_werror():
    inputs = load_inputs([NEGATIVES, SMALL], texts=[("<text>", EMPTY)])
    assert inputs.specs == [NEGATIVES]
    assert [k.file for k in inputs.kernels] == [SMALL, "<text>"]
    files = [ob.file for ob in inputs.obligations]
    assert files == sorted(files, key=[NEGATIVES, SMALL].index) and files[0] == NEGATIVES and files[-1] == SMALL
    assert {ob.severity for ob in inputs.obligations if ob.file == SMALL} == {"error", "warning"}
    strict = load_inputs([SMALL], werror=True)
    assert {ob.severity for ob in strict.obligations} == {"error"}


def test_nothing_to_check_is_no_error_only_for_ttgir_alone():
    done = verify_inputs(load_inputs([], texts=[("<text>", EMPTY)]))
    assert done.nothing and done.report["checks"] == [] and done.report["summary"]["checks"] == 0
    assert done.report["summary"]["ttgir"][0]["file"] == "<text>"
    with pytest.raises(CheckerError) as e:
        verify_inputs(load_inputs([], texts=[("<text>", EMPTY)]), only=["x*"])
    assert str(e.value) == "no check is selected (see --only / --skip)"
    with pytest.raises(CheckerError, match="no check is selected"):
        verify_inputs(load_inputs([NEGATIVES]), skip=["*"])


def test_verify_inputs_selects_and_reports_timings():
    done = verify_inputs(load_inputs([NEGATIVES]), only=["neg-blocked-*", "neg-eight-*"], skip=["*-whole-warps"],
                         jobs=1)
    assert [c["id"] for c in done.report["checks"]] == ["neg-blocked-from-smaller-tile-not-surjective",
                                                       "neg-eight-warps-on-16-rows-duplicate"]
    assert done.jobs == 1 and not done.nothing and done.problems == []
    assert list(done.timings["checks"]) == [c["id"] for c in done.report["checks"]]
    assert done.timings["jobs"] == 1 and done.timings["wall_seconds"] > 0


@pytest.mark.parametrize("options, message", [
    ({"engine": "cvc5"}, "field 'engine': engine must be 'f2', 'z3', 'both' or 'all', got 'cvc5'"),
    ({"jobs": 0}, "field 'jobs': must be at least 1, got 0"),
    ({"timeout_ms": 0}, "field 'timeout_ms': must be a positive number of milliseconds, got 0"),
    ({"figures": "some"}, "field 'figures': must be 'failed', 'all' or 'none', got 'some'"),
    ({"report_dir": "unused", "formats": "json,pdf"},
     "field '--format': unknown report format 'pdf' (formats: text, json, md, junit, html)"),
])
def test_verify_checks_its_arguments_first(tmp_path, options, message):
    with pytest.raises(CheckerError) as e:
        checker.verify(NEGATIVES, **options)
    assert str(e.value) == message


def test_verify_writes_reports_when_given_a_folder(tmp_path):
    rep = checker.verify(NEGATIVES, only="neg-blocked-*", report_dir=tmp_path / "r", formats="json,md",
                         timings=True)
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["report.json", "report.md", "timings.json"]
    assert [c["id"] for c in rep["checks"]] == ["neg-blocked-from-smaller-tile-not-surjective"]


def test_paths_and_texts_are_told_apart(tmp_path):
    assert split_inputs(pathlib.Path("x.yaml")) == (["x.yaml"], [])
    assert split_inputs(["a.yaml", "module {\n}"]) == (["a.yaml"], [("<text>", "module {\n}")])
    assert split_inputs(["module {}", "#b = 1\nmodule {}"]) == ([], [("<text-1>", "module {}"),
                                                                       ("<text-2>", "#b = 1\nmodule {}")])
    with pytest.raises(CheckerError, match="^give spec files, TTGIR files or TTGIR text to verify$"):
        split_inputs([])
    with pytest.raises(CheckerError, match="^expected a path or TTGIR text, got int$"):
        split_inputs([3])
    assert [is_ttgir_text(t) for t in ("module", "#blocked = x", "tt.func @k", "  builtin.module", "a\nb")] == [
        True] * 5
    assert [is_ttgir_text(t) for t in (NEGATIVES, "-", "no/such.yaml", "#")] == [False, False, False, True]
    (tmp_path / "module").write_text("")
    assert not is_ttgir_text(str(tmp_path / "module"))                     # an existing path is a path


def test_names_file_by_whole_trailing_components(tmp_path, monkeypatch):
    assert names_file("specs/kernels/matmul.ttgir", "matmul.ttgir")
    assert names_file("specs/kernels/matmul.ttgir", "kernels/matmul.ttgir")
    assert not names_file("specs/kernels/matmul.ttgir", "ernels/matmul.ttgir")
    assert not names_file("specs/kernels/matmul.ttgir", "other/matmul.ttgir")
    assert names_file("<text>", "<text>") and not names_file("<text>", "text")
    monkeypatch.chdir(ROOT)
    assert names_file(str(ROOT / "specs/kernels/matmul.cuda80.ttgir"), "./specs/kernels/matmul.cuda80.ttgir")


def test_explain_one_line_of_one_input(tmp_path):
    kernels = load_inputs([SMALL, KERNEL]).kernels
    shown = explain(kernels, "kernel.ttgir:9")
    assert (shown.file, shown.line, shown.problems) == (SMALL, 9, [])
    assert [(ob.property, r.status) for ob, r in shown.checks] == [("bank_conflict_free", "fails"),
                                                                  ("aligned_access", "holds")]
    assert [(role, shape) for role, _, shape, _ in shown.layouts] == [("reg", (32, 128)), ("shared", (32, 128))]
    typed = explain(kernels, "kernel.ttgir:8")                               # the type checks come last
    assert [ob.property for ob, _ in typed.checks] == ["data_movement", "well_formed", "surjective",
                                                       "injective_up_to_broadcast"]
    assert [role for role, _, _, _ in typed.layouts] == ["operand", "result"]     # the in-thread transpose


@pytest.mark.parametrize("where, message", [
    ("x", "field '--explain': give a line number, or FILE:LINE, got 'x'"),
    ("kernel.ttgir:４", "field '--explain': give a line number, or FILE:LINE, got 'kernel.ttgir:４'"),
    ("9", "field '--explain': --explain needs exactly one TTGIR input"),
    ("nosuch.ttgir:3", f"field '--explain': --explain needs exactly one TTGIR input named nosuch.ttgir (inputs: "
                       f"{SMALL}, {KERNEL})"),
    ("kernel.ttgir:4", f"{SMALL}:4: field '--explain': no check is derived from line 4"),
])
def test_explain_errors(where, message):
    with pytest.raises(CheckerError) as e:
        explain(load_inputs([SMALL, KERNEL]).kernels, where)
    assert str(e.value) == message


def test_explain_asks_for_more_of_an_ambiguous_path(tmp_path):
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "k.ttgir").write_text(pathlib.Path(SMALL).read_text())
    kernels = load_inputs([str(tmp_path / "a"), str(tmp_path / "b")]).kernels
    with pytest.raises(CheckerError) as e:
        explain(kernels, "k.ttgir:9")
    assert str(e.value) == (f"field '--explain': k.ttgir names 2 TTGIR inputs ({tmp_path}/a/k.ttgir, "
                            f"{tmp_path}/b/k.ttgir): give more of its path")
    assert explain(kernels, "b/k.ttgir:9").file == f"{tmp_path}/b/k.ttgir"


def test_verify_with_nothing_to_check_writes_empty_reports_over_older_ones(tmp_path):
    """Issue 27, defect 7: an older report.json in --report-dir is replaced, never left as this run's."""
    from checker import cli
    ir = tmp_path / "nothing.ttgir"
    ir.write_text('module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {\n}\n')
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "report.json").write_text('{"old": true}')
    assert cli.main(["verify", str(ir), "--report-dir", str(reports), "--format", "json,md", "--quiet"]) == 0
    report = json.loads((reports / "report.json").read_text())
    assert report["summary"]["checks"] == 0 and report["summary"]["ttgir"][0]["file"] == str(ir)
    assert (reports / "report.md").exists()
