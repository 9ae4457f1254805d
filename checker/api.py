"""`checker.verify`, the orchestration the CLI's ``verify`` and the API share: the inputs read, their checks decided
(`checker.run.verification`), the reports written (`checker.reports.writer`). Its docstring is in
`checker/__init__.py`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from .errors import CheckerError
from .hardware import resolve
from .reports.writer import parse_formats, write_reports
from .run.verification import collector_paused, load_inputs, split_inputs, verify_inputs
from .solvers import require
from .verdict import TIMEOUT_MS
from .versions import VersionRequest
from .versions import parse as parse_version
from .z3lib import require_z3


@collector_paused()        # one scope for reading and proving: the module read is dropped before a collection
def verify(paths_or_text: Any, *, hardware: str | None = None, engine: str = "both", jobs: int | None = 1,
           timeout_ms: int = TIMEOUT_MS, only: Sequence[str] = (), skip: Sequence[str] = (),
           werror: bool = False, report_dir: str | os.PathLike | None = None,
           formats: Sequence[str] | str = ("text", "json"), timings: bool = False,
           figures: str = "failed", differential: bool = False, triton_figures: bool = False,
           executor: str | None = None, pretty: bool | None = None,
           triton_version: str | None = None) -> dict[str, Any]:
    """`checker.verify` (its docstring is in `checker/__init__.py`)."""
    if engine not in ("f2", "z3", "both", "all"):
        raise CheckerError(f"engine must be 'f2', 'z3', 'both' or 'all', got {engine!r}", field="engine")
    require_z3(engine)
    if engine == "all":
        require()
    if jobs is not None and jobs < 1:
        raise CheckerError(f"must be at least 1, got {jobs}", field="jobs")
    if timeout_ms < 1:
        raise CheckerError(f"must be a positive number of milliseconds, got {timeout_ms}", field="timeout_ms")
    if figures not in ("failed", "all", "none"):
        raise CheckerError(f"must be 'failed', 'all' or 'none', got {figures!r}", field="figures")
    kinds = parse_formats(formats if isinstance(formats, str) else ",".join(formats)) if report_dir else []
    only = [only] if isinstance(only, str) else list(only)
    skip = [skip] if isinstance(skip, str) else list(skip)
    paths, texts = split_inputs(paths_or_text)
    request = VersionRequest(parse_version(triton_version)) if triton_version is not None else VersionRequest()
    inputs = load_inputs(paths, resolve(hardware) if hardware else None, werror=werror, texts=texts,
                         differential=differential, version=request)
    if executor not in (None, "processes"):
        from .run.executors import parse, require_ray  # lazy: only the optional Ray executor needs it
        parse(executor)
        require_ray()
    done = verify_inputs(inputs, only=only, skip=skip, engine=engine, timeout_ms=timeout_ms, jobs=jobs, layouts=figures,
                         triton_figures=triton_figures, executor=executor, json_report="json" in kinds, pretty=pretty)
    if report_dir is not None:
        write_reports(done.report, done.timings if timings else None, kinds, os.fspath(report_dir),
                      figures=figures, pretty=pretty, rows=done.rows)
    return done.report
