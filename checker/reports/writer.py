"""Which files a verify run writes, and writing them: every report is rendered first, then each is
written atomically (a temporary file in the same folder, then a rename), so a failed render
leaves nothing behind and a reader never sees half a file.

    text -> report.txt    json -> report.json    md -> report.md
    junit -> junit.xml    html -> report.html (checker.reports.html, when installed)

and timings.json when timings are given (`verify --timings`). report.txt is the whole text report
(every row of the table, every note: `checker.reports.text.render_complete`), whatever `verify` prints.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import CheckerError
from .json_report import render_json
from .markdown import render_markdown
from .text import render_complete

FORMATS = ("text", "json", "md", "junit", "html")
FILES = {"text": "report.txt", "json": "report.json", "md": "report.md", "junit": "junit.xml",
         "html": "report.html"}
RENDER = {"text": render_complete, "json": render_json, "md": render_markdown}


def write_atomic(path: str, text: str, field: str = "--report-dir") -> None:
    """Write text to path through a temporary file beside it and os.replace. The file gets the
    usual permissions (0666 less the umask, like open()); an OS error becomes a CheckerError
    naming `field` (the option that chose the path)."""
    tmp = os.path.join(os.path.dirname(os.path.abspath(path)), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise CheckerError(f"cannot write {path}: {e.strerror}", field=field) from None


def parse_formats(text: str) -> list[str]:
    """'text,json,md' -> ['text', 'json', 'md'] (validated; html only where its module exists)."""
    formats = [f.strip() for f in text.split(",") if f.strip()]
    for f in formats:
        if f not in FORMATS:
            raise CheckerError(f"unknown report format '{f}' (formats: {', '.join(FORMATS)})", field="--format")
    if "html" in formats and importlib.util.find_spec("checker.reports.html") is None:
        raise CheckerError("the html report is unavailable (checker.reports.html is not installed)",
                           field="--format")
    return list(dict.fromkeys(formats))


def write_reports(report: Mapping[str, Any], timings: Mapping[str, Any] | None, formats: Sequence[str],
                  report_dir: str, figures: str = "failed", pretty: bool | None = None,
                  rows: Sequence[str | None] | None = None) -> list[str]:
    """Write the requested reports into report_dir, and timings.json when `timings` is given (not
    None); returns the paths written, in format order (timings.json last). `figures` is the HTML
    report's choice of figures (checker.reports.html: failed, all, none); `pretty` the JSON files'
    (`checker.reports.json_report.render_json`: None indents small reports only), `rows` its records
    already encoded (`checker.run.verification.Checked.rows`)."""
    texts: dict[str, str] = {}
    for f in formats:
        if f == "json":
            texts[FILES[f]] = render_json(report, pretty, rows)
        elif f in RENDER:
            texts[FILES[f]] = RENDER[f](report)
        elif f == "junit":
            from .junit import render_junit  # lazy: xml.etree (1.5 ms of a process) only for --format junit
            texts[FILES[f]] = render_junit(report)
        elif f == "html":
            from .html import render_html  # lazy: the HTML renderer (figures) only for --format html
            texts[FILES[f]] = render_html(report, figures=figures)
    if timings is not None:
        texts["timings.json"] = render_json(dict(timings), pretty)
    return write_files(texts, report_dir)


def write_files(texts: Mapping[str, str], folder: str) -> list[str]:
    """Write each (file name, rendered text) into `folder` (made if missing) atomically; the paths written."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise CheckerError(f"cannot create {folder}: {e.strerror}", field="--report-dir") from None
    written = []
    for name, text in texts.items():
        path = os.path.join(folder, name)
        write_atomic(path, text)
        written.append(path)
    return written


def written_line(paths: Sequence[str]) -> str:
    """'reports: reports/report.txt, reports/report.json': where a run's reports went, in one line."""
    return "reports: " + ", ".join(paths)
