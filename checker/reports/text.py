"""The text report: a summary table grouped by spec file and property, then one line per failed check.

    layoutcheck verify: 12 checks, 11 passed, 1 failed (engine both)

    spec                 property            checks  passed  failed
    specs/ampere.yaml    bank_conflict_free       4       4       0
                         conversion               2       1       1
    total                                         6       5       1

    FAIL ampere-epilogue  specs/ampere.yaml:40  expected holds, got fails
         witness: missing_coordinate: coordinate=(dim0=0, dim1=64) certificate=64

`witness_line` (a counterexample in one line) and `failure_line` are shared
with the Markdown and JUnit reports.
"""

from __future__ import annotations

from typing import Any, Mapping

WITNESS_CHARS = 320


def show(value: Any) -> str:
    """Compact plain text: {dim0: 4, dim1: 2} -> (dim0=4, dim1=2), lists in brackets, runs of
    three or more consecutive integers as ranges ([0, 1, 2, 3, 8] -> [0-3, 8])."""
    if isinstance(value, Mapping):
        return "(" + ", ".join(f"{k}={show(v)}" for k, v in value.items()) + ")"
    if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return "[" + ", ".join(_runs(value)) + "]"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _runs(xs: list[int]) -> list[str]:
    out: list[str] = []
    start = 0
    for i in range(1, len(xs) + 1):
        if i == len(xs) or xs[i] != xs[i - 1] + 1:
            run = xs[start:i]
            out += [f"{run[0]}-{run[-1]}"] if len(run) >= 3 else [str(x) for x in run]
            start = i
    return out


def witness_line(check: Mapping[str, Any], limit: int = WITNESS_CHARS) -> str:
    """The check's counterexample in one line ('' when it has none), cut at `limit` characters."""
    cx = check.get("counterexample")
    if not cx:
        return ""
    text = f"{cx.get('kind', 'witness')}: " + " ".join(f"{k}={show(v)}" for k, v in cx.items() if k != "kind")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def failure_line(check: Mapping[str, Any]) -> str:
    """Why a check failed, with its witness: 'expected holds, got fails; witness: ...'."""
    reason = check.get("failure") or f"expected {check.get('expect')}, got {check.get('verdict')}"
    witness = witness_line(check)
    return f"{reason}; witness: {witness}" if witness else reason


def source_text(check: Mapping[str, Any]) -> str:
    src = check.get("source") or {}
    return f"{src.get('file')}:{src.get('line')}"


def headline(report: Mapping[str, Any]) -> str:
    s = report["summary"]
    return (f"layoutcheck verify: {s['checks']} checks, {s['passed']} passed, {s['failed']} failed "
            f"(engine {s['engine']})")


def render_text(report: Mapping[str, Any]) -> str:
    checks = report["checks"]
    groups: dict[tuple[str, str], list[int]] = {}
    for c in checks:
        row = groups.setdefault((c["source"]["file"], c["property"]), [0, 0])
        row[0] += 1
        row[1] += c["passed"]
    rows = [("spec", "property", "checks", "passed", "failed")]
    last_file = None
    for (file, prop), (n, ok) in sorted(groups.items(), key=lambda kv: kv[0]):
        rows.append((file if file != last_file else "", prop, str(n), str(ok), str(n - ok)))
        last_file = file
    s = report["summary"]
    rows.append(("total", "", str(s["checks"]), str(s["passed"]), str(s["failed"])))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [headline(report), ""]
    for r in rows:
        lines.append("  ".join(r[i].ljust(widths[i]) if i < 2 else r[i].rjust(widths[i]) for i in range(5)).rstrip())
    failed = [c for c in checks if not c["passed"]]
    if failed:
        lines.append("")
    for c in failed:
        reason = c.get("failure") or ""
        lines.append(f"FAIL {c['id']}  {source_text(c)}  {reason}")
        if witness_line(c):
            lines.append(f"     witness: {witness_line(c)}")
    return "\n".join(lines) + "\n"
