import os
import pathlib

import pytest

from checker import cli

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPECS = pathlib.Path("tests/verify/specs")          # relative to ROOT: report paths stay stable


@pytest.fixture
def verify(tmp_path, monkeypatch, capsys):
    """Run `layoutcheck verify ARGS --report-dir <tmp>/reports` in this process from the repository
    root; returns (exit code, stdout, stderr, report folder)."""
    monkeypatch.chdir(ROOT)

    def run(*args, formats="text,json,md,junit", jobs=1):
        out = tmp_path / "reports"
        rc = cli.main(["verify", *map(str, args), "--report-dir", str(out), "--format", formats,
                       "--jobs", str(jobs), "--quiet"])
        captured = capsys.readouterr()
        return rc, captured.out, captured.err, out

    return run


def files_under(folder) -> list[str]:
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []
