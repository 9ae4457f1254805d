"""checker/reports/writer.py: which files a run writes, every report rendered before any is written, each
written atomically with the usual permissions; --format parsed and checked."""

import os
import xml.etree.ElementTree as ET

import pytest

from checker.errors import CheckerError
from checker.reports import writer

from .conftest import record, report


def test_reports_are_written_atomically_with_normal_permissions(tmp_path):
    rep = report(record("a1"))
    paths = writer.write_reports(rep, {"schema_version": 1, "jobs": 1, "wall_seconds": 0.0, "checks": {}},
                                 ["md", "json"], str(tmp_path / "out"))
    assert [os.path.basename(p) for p in paths] == ["report.md", "report.json", "timings.json"]
    assert sorted(os.listdir(tmp_path / "out")) == ["report.json", "report.md", "timings.json"]
    # timings.json only when timings are given (verify --timings)
    assert [os.path.basename(p) for p in writer.write_reports(rep, None, ["json"], str(tmp_path / "t"))] == [
        "report.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert all(os.stat(p).st_mode & 0o777 == 0o666 & ~umask for p in paths)


def test_write_atomic(tmp_path):
    from checker.reports.writer import write_atomic
    path = tmp_path / "f.svg"
    old = os.umask(0o022)
    try:
        write_atomic(str(path), "<svg/>", "--svg")
    finally:
        os.umask(old)
    assert path.read_text() == "<svg/>" and os.listdir(tmp_path) == ["f.svg"]
    assert path.stat().st_mode & 0o777 == 0o644
    with pytest.raises(CheckerError, match="cannot write") as e:
        write_atomic(str(tmp_path / "no" / "f.svg"), "<svg/>", "--svg")
    assert e.value.field == "--svg"


def test_every_format_of_a_real_report(failing_report, tmp_path):
    paths = writer.write_reports(failing_report, None, ["text", "json", "md", "junit", "html"], str(tmp_path))
    assert [os.path.relpath(p, tmp_path) for p in paths] == ["report.txt", "report.json", "report.md", "junit.xml",
                                                             "report.html"]
    assert (tmp_path / "report.txt").read_text().startswith(
        "layoutcheck verify: 6 checks, 1 passed, 5 failed (engine both, Triton 3.9: default)\n")
    assert ET.parse(tmp_path / "junit.xml").getroot().get("failures") == "5"
    assert (tmp_path / "report.md").read_text().startswith("### layoutcheck verify: 5 of 6 checks failed\n")
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert sorted(os.listdir(tmp_path)) == sorted(os.path.basename(p) for p in paths)     # no temporary left
    assert writer.written_line(paths[:2]) == f"reports: {tmp_path}/report.txt, {tmp_path}/report.json"


def test_a_failed_render_writes_nothing(monkeypatch, tmp_path):
    def broken(rep):
        raise RuntimeError("cannot render")
    monkeypatch.setitem(writer.RENDER, "md", broken)
    with pytest.raises(RuntimeError):
        writer.write_reports(report(record("a")), None, ["json", "md"], str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_a_report_dir_that_is_a_file_is_bad_input(tmp_path):
    (tmp_path / "taken").write_text("")
    with pytest.raises(CheckerError) as e:
        writer.write_reports(report(record("a")), None, ["json"], str(tmp_path / "taken" / "sub"))
    assert str(e.value) == f"field '--report-dir': cannot create {tmp_path}/taken/sub: Not a directory"


def test_formats_are_parsed_deduplicated_and_checked():
    assert writer.parse_formats(" text, json,,md ,json") == ["text", "json", "md"]
    assert writer.parse_formats("") == []
    with pytest.raises(CheckerError) as e:
        writer.parse_formats("json,pdf")
    assert str(e.value) == "field '--format': unknown report format 'pdf' (formats: text, json, md, junit, html)"
    assert [writer.FILES[f] for f in writer.FORMATS] == ["report.txt", "report.json", "report.md", "junit.xml",
                                                         "report.html"]
