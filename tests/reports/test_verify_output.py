"""What `layoutcheck verify` says while and after it runs: progress on a terminal (a live bar with
count, rate and time left, from the start), off a terminal (a line every 10% or few seconds, never
one per check), none under --quiet; the `reports:` line on stderr once the files are written; and
timings.json only under --timings. (checker.runner.Progress on its own: tests/test_runner.py.)"""

import fcntl
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

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPECS = ["specs/negatives.yaml", "specs/reductions.yaml"]          # 21 checks, about a second


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
