"""report.json and timings.json: the machine-readable results of a verify run.

``report.json`` is ``{"schema_version": 1, "summary": {...}, "checks": [...]}``
with one record per check in run order (`checker.run.runner.record`; fields in
docs/report-schema.md, checked by ``checker/schemas/report.schema.json``).
It holds no wall times, so the same specs give the same bytes whatever
``--jobs`` or ``--executor``. A report of up to `PRETTY_MAX_CHECKS` checks is
indented (two spaces); a larger one is compact: no indentation, one check
record per line (``--pretty`` indents it anyway). Times go to ``timings.json``:
``{"schema_version": 1, "jobs", "wall_seconds", "checks": {id: {"total", "engines"[, "same_as"]}}}``
(``same_as``: the identical check whose proof this one reused).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..run.record import (  # noqa: F401  (here too)
    PRETTY_MAX_CHECKS,
    SCHEMA_VERSION,
    VERDICTS,
    build_report,
    build_timings,
    encode_compact,
    indents,
)


def render_json(data: dict[str, Any], pretty: bool | None = None, rows: Sequence[str | None] | None = None) -> str:
    """JSON text of a report (or timings). pretty: True indents, False is compact (each element of
    ``checks`` on a line of its own), None (default) indents up to `PRETTY_MAX_CHECKS` checks. rows: for a
    compact report, ``encode_compact`` of each element of ``data["checks"]`` (a list), in order, where it is
    made already (None where not): the worker that proved a check encodes its record
    (`checker.run.runner.Task.json_row`), so that a large report is not encoded in one process at the end."""
    checks = data.get("checks")
    if pretty is None:
        pretty = indents(None, len(checks)) if isinstance(checks, (list, dict)) else True
    if pretty:
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    encode = encode_compact
    head = encode({k: v for k, v in data.items() if k != "checks"})
    if checks is None:
        return head + "\n"
    if isinstance(checks, dict):
        lines = [f"{encode(k)}:{encode(v)}" for k, v in checks.items()]
        body = "{\n" + ",\n".join(lines) + "\n}"
    elif rows is not None and len(rows) == len(checks):
        body = "[\n" + ",\n".join(row if row is not None else encode(c) for row, c in zip(rows, checks)) + "\n]"
    else:
        body = "[\n" + ",\n".join(map(encode, checks)) + "\n]"
    return f"{head[:-1]}{',' if len(head) > 2 else ''}\"checks\":{body}}}\n"
