"""The records of a verify run, as report.json and timings.json hold them (`checker.reports.json_report` writes
them): the report (``{"schema_version": 1, "summary": {...}, "checks": [...]}``, one record per check in run
order), the timings, and the compact encoding of one check record that the worker proving it makes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

SCHEMA_VERSION = 1
PRETTY_MAX_CHECKS = 2000        # larger reports are written compact (one record per line) unless asked
VERDICTS = ("holds", "fails", "unknown", "error")


def build_report(outcomes: Sequence, *, engine: str, timeout_ms: int,
                 ttgir: Sequence[dict] | None = None) -> dict[str, Any]:
    """The report of a run from its outcomes (`checker.run.runner.Outcome`), in run order; `ttgir`
    holds one `KernelChecks.summary()` per IR file read."""
    checks = [o.record for o in outcomes]
    passed = sum(c["passed"] for c in checks)
    warnings = sum(not c["passed"] and c["severity"] == "warning" for c in checks)
    properties: dict[str, dict[str, int]] = {}
    for c in checks:
        row = properties.setdefault(c["property"], {"checks": 0, "passed": 0, "failed": 0, "warnings": 0})
        row["checks"] += 1
        row["passed" if c["passed"] else "warnings" if c["severity"] == "warning" else "failed"] += 1
    files = list(dict.fromkeys(c["source"]["file"] for c in checks))
    summary = {"checks": len(checks), "passed": passed, "failed": len(checks) - passed - warnings,
               "warnings": warnings, "verdicts": _verdicts(checks),
               "properties": dict(sorted(properties.items())), "files": files,
               "engine": engine, "timeout_ms": timeout_ms}
    if ttgir:
        summary["ttgir"] = list(ttgir)
    return {"schema_version": SCHEMA_VERSION, "summary": summary, "checks": checks}


def _verdicts(checks: Sequence[dict]) -> dict[str, int]:
    """Checks per verdict; ``error`` (an internal error in a TTGIR check) only when there is one."""
    counts = {v: sum(c["verdict"] == v for c in checks) for v in VERDICTS}
    if not counts["error"]:
        del counts["error"]
    return counts


def build_timings(outcomes: Sequence, *, jobs: int, wall_seconds: float) -> dict[str, Any]:
    """Wall times of a run (not deterministic; kept out of report.json)."""
    return {"schema_version": SCHEMA_VERSION, "jobs": jobs, "wall_seconds": round(wall_seconds, 6),
            "checks": {o.record["id"]: _timing(o.seconds) for o in outcomes}}


def _timing(seconds: dict[str, Any]) -> dict[str, Any]:
    out = {"total": round(seconds["total"], 6), "engines": {k: round(v, 6) for k, v in seconds["engines"].items()}}
    if seconds.get("same_as"):          # proved once for an identical check (checker.run.runner.proof_key)
        out["same_as"] = seconds["same_as"]
    return out


# the compact form of one JSON value (a check record: one line of a compact report.json)
encode_compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def indents(pretty: bool | None, checks: int) -> bool:
    """Whether a report of `checks` check records is written indented (`render_json`'s `pretty`)."""
    return checks <= PRETTY_MAX_CHECKS if pretty is None else pretty
