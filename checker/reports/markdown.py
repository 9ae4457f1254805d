"""The Markdown report, short enough for a pull-request comment: totals first, then the problems of the
TTGIR input, the failed spec checks with their witness in one line, the TTGIR findings (errors, then
warnings) worded as the text report words them (`checker.reports.text.finding`), and the checks skipped;
at most `MAX_ROWS` rows per table (report.json has the rest)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .text import SEVERITIES, input_problems, ir_findings, skipped_summary, source_text, witness_line

MAX_ROWS = 50


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Mapping[str, Any]) -> str:
    s = report["summary"]
    if s["failed"]:
        title = f"### layoutcheck verify: {s['failed']} of {s['checks']} checks failed"
    elif s.get("warnings"):
        title = f"### layoutcheck verify: no check failed, {s['warnings']} of {s['checks']} warned"
    else:
        title = f"### layoutcheck verify: all {s['checks']} checks passed"
    problems = input_problems(report)
    if problems:
        title += f"; {len(problems)} problem(s) in the TTGIR input"
    v = s["verdicts"]
    lines = [title, "",
             "| checks | passed | failed | holds | fails | unknown | engine |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | --- |",
             f"| {s['checks']} | {s['passed']} | {s['failed']} | {v['holds']} | {v['fails']} | {v['unknown']} "
             f"| {s['engine']} |"]
    if "triton_version" in s:
        lines += ["", f"Triton semantics: {s['triton_version']}"
                  + (f" ({s['triton_version_reason']})" if s.get("triton_version_reason") else "") + "."]
    if problems:
        lines += ["", f"**{len(problems)} problem(s) in the TTGIR input** (the rest was checked):", "",
                  "| file | line | problem |", "| --- | ---: | --- |"]
        lines += [f"| `{_cell(file)}` | {line} | {_cell(message)} |" for file, line, message in problems[:MAX_ROWS]]
    failed = [c for c in report["checks"] if not c["passed"] and not (c.get("source") or {}).get("op")]
    if failed:
        lines += ["", "| check | source | expected | got | witness |", "| --- | --- | --- | --- | --- |"]
        for c in failed[:MAX_ROWS]:
            got = c["verdict"] + (" (warning)" if c.get("severity") == "warning" else "")
            reason = c.get("failure") or ""
            if reason and not reason.startswith("expected " + c["expect"] + ","):
                got += f" ({reason})"
            witness = witness_line(c)
            lines.append(f"| `{_cell(c['id'])}` | `{_cell(source_text(c))}` | {c['expect']} | {_cell(got)} | "
                         + (f"`{_cell(witness)}`" if witness else "-") + " |")
        if len(failed) > MAX_ROWS:
            lines.append(f"\n... and {len(failed) - MAX_ROWS} more failed checks (see report.json).")
    found = sorted((f for f in ir_findings(report) if f[4] != "note"), key=lambda f: SEVERITIES.index(f[4]))
    if found:
        lines += ["", "| severity | where | operation | finding |", "| --- | --- | --- | --- |"]
        lines += [f"| {severity} | `{_cell(f'{file}:{line}')}`{_cell(where)} | `{_cell(op)}` | {_cell(message)} |"
                  for file, line, where, op, severity, message, _ in found[:MAX_ROWS]]
        if len(found) > MAX_ROWS:
            lines.append(f"\n... and {len(found) - MAX_ROWS} more findings (see report.txt or report.json).")
    skipped = skipped_summary(report)
    if skipped:
        lines += ["", f"**{sum(n for _, n, _ in skipped)} check(s) skipped** (not covered by the models):", "",
                  "| file | skipped | reason |", "| --- | ---: | --- |"]
        lines += [f"| `{_cell(file)}` | {n} | {_cell(reason)} |" for file, n, reason in skipped[:MAX_ROWS]]
    return "\n".join(lines) + "\n"
