"""The Python API as documented: checker.parse_encoding / lower / prove / verify, type hints, py.typed."""

import inspect
import json
import os
import pathlib
import typing

import pytest

import checker
from checker.cli import main
from checker.errors import CheckerError, ParseError

ROOT = pathlib.Path(__file__).resolve().parents[1]
KERNEL = "specs/kernels/matmul.cuda80.ttgir"
BLOCKED = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [1, 0]}>"


def test_the_documented_entry_points():
    enc = checker.parse_encoding("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
                                 "instrShape = [16, 8]}>")
    L = checker.lower(enc, [64, 64])
    assert isinstance(L, checker.LinearLayout)
    assert set(L.to_dict()) == {"bases", "out_dims"}
    r = checker.prove.injective(L)
    assert r.status == "holds" and bool(r)
    assert checker.prove.surjective(enc, [64, 64]).status == "holds"
    assert callable(checker.verify)
    assert {"parse_encoding", "lower", "prove", "verify"} <= set(checker.__all__)


def test_lower_takes_pasted_text_and_the_shape_of_its_type():
    L = checker.lower(f"tensor<16x16xf16, {BLOCKED}> loc(#loc3)")
    assert L == checker.lower(checker.parse_encoding(BLOCKED), [16, 16])
    assert checker.lower(BLOCKED, [16, 16]) == L
    with pytest.raises(CheckerError, match=r"shape \[32, 16\] disagrees with the type's shape \[16, 16\]"):
        checker.lower(f"tensor<16x16xf16, {BLOCKED}>", [32, 16])
    with pytest.raises(CheckerError, match="needs a tensor shape"):
        checker.lower(BLOCKED)
    padded = checker.lower("!ttg.memdesc<16x16xf16, #ttg.padded_shared<[64:+8] {order = [1, 0], shape = [16, 16]}>, "
                           "#ttg.shared_memory, mutable>")
    assert isinstance(padded, checker.PaddedLayout) and padded.intervals == (64,)


def test_parse_encoding_says_what_is_no_layout():
    with pytest.raises(ParseError, match=r"^argument spec: #ttig\.dpas<\{\}>: an Intel encoding \(#ttig\.dpas\): "
                                         r"not supported$"):          # the API names the parameter
        checker.parse_encoding("#ttig.dpas<{}>")
    with pytest.raises(ParseError, match="a Gluon auto encoding: the layout is not chosen yet"):
        checker.parse_encoding("#gluon.auto_encoding")


def test_verify_returns_the_report_the_command_writes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    report = checker.verify(KERNEL)
    assert main(["verify", KERNEL, "--report-dir", str(tmp_path / "cli"), "--quiet", "--jobs", "2"]) in (0, 1)
    text = capsys.readouterr().out
    written = json.loads((tmp_path / "cli" / "report.json").read_text())
    assert report == written                                 # summary and every check, byte for byte as JSON
    assert report["summary"]["checks"] > 0 and report["summary"]["files"] == [KERNEL]
    from checker.reports.text import render_text
    assert render_text(report) == text


def test_verify_writes_nothing_unless_asked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    report = checker.verify(ROOT / KERNEL, engine="f2", jobs=2)
    assert os.listdir(tmp_path) == []
    assert report["summary"]["engine"] == "f2"
    out = tmp_path / "out"
    again = checker.verify(str(ROOT / KERNEL), engine="f2", report_dir=out, formats="json,md", timings=True)
    assert sorted(os.listdir(out)) == ["report.json", "report.md", "timings.json"]
    assert json.loads((out / "report.json").read_text()) == again == report


def test_verify_reads_ttgir_text(monkeypatch):
    monkeypatch.chdir(ROOT)
    text = (ROOT / KERNEL).read_text()
    from_file = checker.verify(KERNEL, engine="f2")
    from_text = checker.verify(text, engine="f2")
    assert from_text["summary"]["files"] == ["<text>"]
    assert [c["id"].replace(KERNEL, "<text>") for c in from_file["checks"]] == [c["id"] for c in from_text["checks"]]
    for key in ("checks", "passed", "failed", "warnings", "verdicts", "properties"):
        assert from_text["summary"][key] == from_file["summary"][key]
    both = checker.verify([KERNEL, text], engine="f2", only=["*surjective*"])
    assert both["summary"]["files"] == [KERNEL, "<text>"]
    assert {c["property"] for c in both["checks"]} == {"surjective"}


def test_verify_bad_input_raises(monkeypatch):
    monkeypatch.chdir(ROOT)
    with pytest.raises(CheckerError, match="no such file or folder"):
        checker.verify("does/not/exist.yaml")
    with pytest.raises(CheckerError, match="no check is selected"):
        checker.verify(KERNEL, only=["nothing-matches"])
    with pytest.raises(CheckerError, match="engine must be"):
        checker.verify(KERNEL, engine="cvc5")


def _public_functions(module):
    return [(n, f) for n, f in vars(module).items()
            if inspect.isfunction(f) and not n.startswith("_") and f.__module__ == module.__name__]


@pytest.mark.parametrize("module", [checker, checker.prove], ids=["checker", "checker.prove"])
def test_every_public_function_is_typed(module):
    functions = _public_functions(module)
    assert len(functions) >= 3
    for name, f in functions:
        hints = typing.get_type_hints(f)
        missing = [p for p in inspect.signature(f).parameters if p not in hints]
        assert not missing and "return" in hints, (name, missing)


def test_the_package_says_it_is_typed():
    assert (ROOT / "checker" / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    import re
    data = re.search(r"\[tool\.setuptools\.package-data\]\s*checker = \[([^\]]*)\]", text)
    assert data and '"py.typed"' in data.group(1)
