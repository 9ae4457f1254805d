"""What `layoutcheck verify` says while and after it runs: progress on a terminal (a live bar with
count, rate and time left, from the start), off a terminal (a line every 10% or few seconds, never
one per check), none under --quiet; the `reports:` line on stderr once the files are written;
timings.json only under --timings; and on stdout the text report, errors first and last, as much of it as
--table, --notes and --findings-only ask while report.txt stays whole. (checker.run.runner.Progress on its own:
tests/test_runner.py; the text report's rendering: test_text.py.)"""

import fcntl
import json
import os
import pathlib
import pty
import re
import select
import struct
import subprocess
import sys
import termios

from checker import cli
from checker.reports import text
from checker.reports.text import headline, ir_diagnostics

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPECS = ["specs/negatives.yaml", "specs/reductions.yaml"]          # 21 checks, about a second
# five spec failures (errors), a TTGIR bank conflict (a warning), a conversion (a note); what the TTGIR gives
# follows the models, so the tests below read it from the run's report.json (test_text.py renders by value)
MIXED = ["tests/verify/specs/failing.yaml", "tests/corpus/gl_cp_async_mma_v2.cuda80.ttgir",
         "specs/kernels/matmul.cuda80.ttgir"]


def verify(tmp_path, monkeypatch, capsys, *args):
    monkeypatch.chdir(ROOT)
    rc = cli.main(["verify", *SPECS, "--report-dir", str(tmp_path / "reports"), "--jobs", "1", *args])
    out, err = capsys.readouterr()
    return rc, out, err, tmp_path / "reports"


def test_reports_line_on_stderr_after_the_text_report(tmp_path, monkeypatch, capsys):
    rc, out, err, reports = verify(tmp_path, monkeypatch, capsys, "--format", "text,json,md")
    assert rc in (0, 1)
    assert out == (reports / "report.txt").read_text()                   # stdout is the text report, nothing else
    assert err.splitlines()[-1] == f"reports: {reports}/report.txt, {reports}/report.json, {reports}/report.md"
    assert sorted(os.listdir(reports)) == ["report.json", "report.md", "report.txt"]   # no timings.json


def test_timings_only_when_asked(tmp_path, monkeypatch, capsys):
    rc, out, err, reports = verify(tmp_path, monkeypatch, capsys, "--format", "json", "--timings", "--quiet")
    assert rc in (0, 1) and err == ""                                          # --quiet: no progress, no reports line
    assert sorted(os.listdir(reports)) == ["report.json", "timings.json"]


def test_progress_off_a_terminal_is_a_few_lines(tmp_path, monkeypatch, capsys):
    rc, out, err, reports = verify(tmp_path, monkeypatch, capsys, "--format", "json")
    lines = err.splitlines()
    progress = [line for line in lines if line.startswith("verify: ")]
    assert lines == progress + [f"reports: {reports}/report.json"]
    assert 1 <= len(progress) <= 11                                      # 21 checks, never one line per check
    assert re.fullmatch(r"verify: 21/21 checks \(100%\), \d+ failed, [\d.]+ checks/s, \d+s in all", progress[-1])


def test_progress_on_a_terminal_is_a_live_bar(tmp_path):
    """verify in a pseudo-terminal: the bar is drawn before the first check ends and redrawn in place,
    with the count, the rate and the time left."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))     # 40 rows, 120 columns
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "checker.cli", "verify", *SPECS, "--jobs", "1", "--format", "json",
                             "--report-dir", str(tmp_path / "reports")],
                            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:                                                  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.wait(timeout=60) in (0, 1)                       # (whether the bundled specs pass is not the point)
    text = seen.decode()
    frames = [f for f in re.split(r"[\r\n]+", text) if f.startswith("verify:")]
    assert frames[0].startswith("verify:   0%|") and " 0/21 [" in frames[0]      # from the start
    assert "\r" in text and len(frames) >= 2                                             # redrawn in place
    last = frames[-1]
    assert last.startswith("verify: 100%|") and " 21/21 [" in last
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d\]", last)                                      # elapsed<left
    assert text.rstrip().splitlines()[-1] == f"reports: {tmp_path}/reports/report.json"
    assert "verify: 21/21 checks (100%)" not in text                                      # no plain lines here


def mixed(tmp_path, monkeypatch, capsys, *args):
    """verify MIXED, quietly: (exit code, stdout lines, report.txt lines, report.json's headline, warning lines,
    note lines)."""
    monkeypatch.chdir(ROOT)
    rc = cli.main(["verify", *MIXED, "--report-dir", str(tmp_path / "reports"), "--jobs", "1", "--quiet", *args])
    out = capsys.readouterr().out
    report = json.loads((tmp_path / "reports" / "report.json").read_text())
    found = ir_diagnostics(report)
    return (rc, out.splitlines(), (tmp_path / "reports" / "report.txt").read_text().splitlines(), headline(report),
            [line for line in found if ": warning: " in line], [line for line in found if ": note: " in line])


FAILS = ["FAIL bad-duplicates  tests/verify/specs/failing.yaml:15  expected holds, got fails",
         "FAIL bad-conflicts  tests/verify/specs/failing.yaml:19  expected holds, got fails",
         "FAIL bad-conflict-count  tests/verify/specs/failing.yaml:25  expected 3 conflicts, got 7",
         "FAIL bad-level  tests/verify/specs/failing.yaml:32  expected level register, got cta",
         "FAIL bad-expected-failure  tests/verify/specs/failing.yaml:38  expected fails, got holds"]
RECAP = ["5 error(s), repeated from above:"] + FAILS


def test_errors_come_first_and_again_at_the_end(tmp_path, monkeypatch, capsys):
    rc, out, report_txt, head, warnings, notes = mixed(tmp_path, monkeypatch, capsys)
    assert rc == 1 and out == report_txt                                     # a small run: stdout is report.txt
    assert head.startswith("layoutcheck verify: ") and " 5 failed, " in head and warnings and notes
    assert [line for line in out if not line.startswith("     witness: ")][:len(FAILS) + 2] == [head, ""] + FAILS
    assert [line for line in out if line.startswith("FAIL ")] == FAILS + FAILS       # the findings, then the recap
    at = out.index(warnings[0])
    assert out[at - 2:at + len(warnings) + len(notes) + 2] == [FAILS[-1], ""] + warnings + [""] + notes + [""]
    assert out[at + len(warnings) + len(notes) + 2].split() == ["file", "property", "checks", "passed", "failed",
                                                                "warnings"]
    assert out[-len(RECAP) - 2:] == [""] + RECAP + [head]


def test_findings_only_prints_errors_and_warnings_with_the_same_exit_code(tmp_path, monkeypatch, capsys):
    rc, out, report_txt, head, warnings, notes = mixed(tmp_path, monkeypatch, capsys, "--findings-only")
    assert rc == 1
    assert [line for line in out if not line.startswith("     witness: ")] == (
        [head, ""] + FAILS + [""] + warnings + [""] + RECAP + [head])
    assert [line[:19] for line in out if line.startswith("     witness: ")] == [
        "     witness: colli", "     witness: bank_", "     witness: bank_"]
    assert not any(": note: " in line or line.startswith(("file ", "total ")) for line in out)
    assert set(notes) <= set(report_txt) and any(line.startswith("total ") for line in report_txt)   # report.txt whole
    for werror, status in (([], 0), (["--werror"], 1)):           # warnings alone: 0, or 1 under --werror, as ever
        for shown in ([], ["--findings-only"]):
            args = ["verify", MIXED[1], "--report-dir", str(tmp_path / "w"), "--jobs", "1", "--quiet", *werror, *shown]
            assert cli.main(args) == status
        out = capsys.readouterr().out                               # an error is repeated in the recap, a warning not
        n = len([line for line in ir_diagnostics(json.loads((tmp_path / "w" / "report.json").read_text()))
                 if ": error: " in line or ": warning: " in line])
        assert (out.count(": warning: "), out.count(": error: ")) == ((0, 4 * n) if werror else (2 * n, 0))


def test_a_big_table_and_many_notes_are_shortened_unless_asked(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(text, "TABLE_ROWS", 5)
    monkeypatch.setattr(text, "NOTES_SHOWN", 0)
    rc, out, report_txt, head, warnings, notes = mixed(tmp_path, monkeypatch, capsys)
    report = json.loads((tmp_path / "reports" / "report.json").read_text())
    rows = len({(c["source"]["file"], c["property"]) for c in report["checks"]})
    assert rc == 1 and out != report_txt and rows > 5
    assert f"({rows} rows by file and property: --table prints them, report.txt has them)" in out
    aligned = report["summary"]["properties"]["aligned_access"]
    assert out[out.index("property                   checks  passed  failed  warnings") + 1].split() == [
        "aligned_access"] + [str(aligned[k]) for k in ("checks", "passed", "failed", "warnings")]
    assert not set(notes) & set(out)
    assert "(more than 0 notes are counted, not listed: --notes lists them, report.txt has them)" in out
    assert out[-len(RECAP) - 1:] == report_txt[-len(RECAP) - 1:] == RECAP + [head]
    rc, whole, report_txt, head, warnings, notes = mixed(tmp_path, monkeypatch, capsys, "--table", "--notes")
    assert rc == 1 and whole == report_txt and set(notes) <= set(whole)
    assert [line.split()[:2] for line in whole if line.startswith(tuple(MIXED)) and ": " not in line] == [
        [MIXED[2], "aligned_access"], [MIXED[1], "aligned_access"], [MIXED[0], "bank_conflict_free"]]   # a row per file


def test_findings_only_takes_no_table_or_notes(tmp_path, monkeypatch, capsys):
    for flag in ("--table", "--notes"):
        rc = cli.main(["verify", *MIXED, "--findings-only", flag, "--report-dir", str(tmp_path / "r")])
        assert rc == 2 and capsys.readouterr().err == (
            f"layoutcheck: error: field '--findings-only': prints no table and no notes: give it without {flag}\n")
    assert not (tmp_path / "r").exists()
