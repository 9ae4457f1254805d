"""What `layoutcheck run` and `checker.triton` print: findings at the Python line, and the summary.

    matmul.py:42:5: warning: 8-way bank conflict (STS.128): lanes 0 and 4 ... [matmul.ttgir:61: ttg.local_store]
    matmul.py:57:13: note: cta-level conversion #mma -> #blocked: data moves ... [matmul.ttgir:88: ttg.convert_layout]

A finding whose operation has no Python location is written from its TTGIR line, as `verify` writes it.
Errors and warnings are failed checks (`checker.reports.text.finding`); notes are the conversions that
go through shared memory (cta or cross_cta level). Rendered from the report data alone.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from .text import conversion_note, finding, version_text

ORDER = {"error": 0, "warning": 1, "note": 2}


def python_path(file: str) -> str:
    """A Python file as the user wrote it: relative to the working directory when inside it."""
    try:
        rel = os.path.relpath(file)
    except ValueError:
        return file
    return rel if not rel.startswith("..") else file


def diagnostics(report: Mapping[str, Any], ttgir_name: str) -> list[str]:
    """One line per finding of one kernel's report, in TTGIR order (module docstring)."""
    found = []
    for c in report.get("checks", ()):
        src = c.get("source") or {}
        if not src.get("op"):
            continue
        d = c.get("details") or {}
        if not c["passed"]:
            severity, message = c.get("severity", "error"), finding(c)
        elif c["property"] == "conversion" and c["verdict"] == "holds" and d.get("level") in ("cta", "cross_cta"):
            severity, message = "note", conversion_note(c)
        else:
            continue
        found.append((src.get("line") or 0, ORDER[severity], severity, message, src))
    found.sort(key=lambda f: (f[0], f[1]))
    lines = []
    for line, _, severity, message, src in found:
        py = src.get("python")
        beside = f"{ttgir_name}:{line}: {src['op']}"
        if py:
            lines.append(f"{python_path(str(py.get('file')))}:{py.get('line')}:{py.get('col')}: {severity}: "
                         f"{message} [{beside}]")
        else:
            lines.append(f"{ttgir_name}:{line}: {src['op']}: {severity}: {message}")
    for k in report.get("summary", {}).get("ttgir", ()):
        for p in k.get("problems", ()):
            lines.append(f"{ttgir_name}:{p['line']}: error: {p['message']}")
    return lines


def summary_lines(kernels: Sequence[Any], report: Mapping[str, Any] | None) -> list[str]:
    """The summary at exit: one headline, then one line per kernel."""
    n = len(kernels)
    hits = sum(1 for k in kernels if k.cache_hit)
    errors = sum(k.errors + (k.problem is not None) for k in kernels)
    warnings = sum(k.warnings for k in kernels)
    checks = report["summary"]["checks"] if report else 0
    version = version_text(report["summary"]) if report else ""
    head = (f"layoutcheck run: {n} kernel{'s' if n != 1 else ''} verified ({n - hits} compiled, {hits} from "
            f"Triton's cache), {checks} checks: {errors} error{'s' if errors != 1 else ''}, "
            f"{warnings} warning{'s' if warnings != 1 else ''}{version}")
    lines = [head]
    width = max((len(k.name) for k in kernels), default=0)
    for k in kernels:
        c = k.report["summary"]["checks"] if k.report else 0
        state = "ok" if not (k.errors or k.warnings or k.problem) else \
            ", ".join(x for x in (f"{k.errors} error(s)" if k.errors else "",
                                  f"{k.warnings} warning(s)" if k.warnings else "",
                                  "not verified" if k.problem else "") if x)
        shared = _shared(k)
        lines.append(f"  {k.name.ljust(width)}  {k.target:<12} {c:4d} checks  {state}{shared}")
    return lines


def _shared(k: Any) -> str:
    """', shared memory 16384 B (Triton: 16384 B)': the whole-kernel fits check against Triton's metadata; a
    Blackwell kernel's tensor memory after it (', tensor memory 256 columns (Triton: 256)')."""
    out = ""
    for c in (k.report or {}).get("checks", ()):
        p = c.get("parameters") or {}
        if c["property"] == "fits" and "kernel_bytes" in p:
            theirs = f" (Triton: {k.shared} B)" if k.shared is not None else ""
            out = f", shared memory {p['kernel_bytes']} B{theirs}" + out
        elif c["property"] == "fits" and "tmem_size" in p:
            tmem = getattr(k, "tmem_size", None)
            out += f", tensor memory {p['tmem_size']} columns" + (f" (Triton: {tmem})" if tmem is not None else "")
    return out
