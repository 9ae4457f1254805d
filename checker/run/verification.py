"""A verify run, in-process: what `layoutcheck verify` and `checker.verify` share.

    inputs = load_inputs(["specs/"], hardware=None)       # specs (all or nothing) and TTGIR (problems kept)
    result = verify_inputs(inputs, engine="both", jobs=4)  # the selected checks proved
    result.report                                          # the dict report.json holds (build_report)

(The module is not named ``verify``: ``checker.verify`` is the function.)
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..encodings import lower
from ..errors import CheckerError
from ..memo import Memo
from ..registry import PROPERTIES
from ..spec import find_inputs, is_ir, load_paths, lower_operands, select
from ..syntax.ttgir import read_ttgir
from ..ttgir.kernel import kernel_checks, read_ir_file
from ..verdict import TIMEOUT_MS
from ..versions import NEWEST, VersionRequest, using
from ..versions import parse as parse_version
from .record import build_report, build_timings, indents
from .runner import default_jobs, evaluate, run

TEXT_NAME = "<text>"
DEFAULT_REASON = "default"

# A run pauses the cyclic collector while it reads and proves. It makes no reference cycle (what it builds and
# drops is freed by reference counting as the run goes: tests/run/test_collections.py), so a collection during the
# run finds nothing of its own to free; all it does is walk the objects of the host process, and after a Triton
# compile those are many: one collection of the second generation inside a verify took 10 ms of a matmul's 21 ms
# (Triton 3.9's worker, interleaved compile and verify). Collections wait for the caller's code after the run.
# `checker.verify` and the Triton integration open one scope around both reading and proving (the inner ones
# find the collector paused and leave it so).


class _PausedCollector(contextlib.ContextDecorator):
    """`collector_paused`: the collector disabled on entry where it was enabled, enabled again as the last thing
    the exit does (nothing is allocated after it, so the collection the run's allocations are due is the
    caller's next allocation's)."""

    def __init__(self) -> None:
        self.paused = False

    def _recreate_cm(self) -> _PausedCollector:
        return _PausedCollector()       # a scope per call: decorated functions may nest and recurse

    def __enter__(self) -> _PausedCollector:
        self.paused = gc.isenabled()
        if self.paused:
            gc.disable()
        return self

    def __exit__(self, *exc: object) -> bool:
        if self.paused:
            gc.enable()
        return False


def collector_paused() -> _PausedCollector:
    """Pause the cyclic collector for the block (decorator or ``with``), then resume it; a collector the caller
    disabled stays disabled."""
    return _PausedCollector()


@dataclass
class Inputs:
    """Every input of a run: the spec files, the TTGIR files read (`KernelChecks`), and every
    obligation in input order."""

    specs: list[str] = field(default_factory=list)
    kernels: list = field(default_factory=list)
    obligations: list = field(default_factory=list)
    version: VersionRequest = VersionRequest()          # the Triton version asked for
    memo: Memo = field(default_factory=Memo)            # what reading and proving share (`checker.memo`)


@dataclass
class Checked:
    """A finished run: the report (report.json's dict), the outcomes with records, and the TTGIR
    input's problems (file, line, message); `timings` is timings.json's dict, built when first asked
    for (from the outcomes and `wall_seconds`). `nothing` is True when the input is TTGIR with no
    layout to check (the report then has no checks)."""

    report: dict[str, Any]
    outcomes: list
    problems: list[tuple[str, int, str]]
    jobs: int
    wall_seconds: float = 0.0
    nothing: bool = False

    @property
    def rows(self) -> list[str | None]:
        """Each record of the report's checks as its compact JSON text, where the worker that proved it
        made it (`verify_inputs`' json_report), else None (`checker.reports.json_report.render_json`'s rows)."""
        return [o.row for o in self.outcomes]

    @functools.cached_property
    def timings(self) -> dict[str, Any]:
        return build_timings(self.outcomes, jobs=self.jobs, wall_seconds=self.wall_seconds)


@collector_paused()
def load_inputs(paths: Sequence[str], hardware=None, *, werror: bool = False,
                texts: Sequence[tuple[str, str]] = (), differential: bool = False,
                version: VersionRequest = VersionRequest()) -> Inputs:  # noqa: B008  immutable (frozen)
    """Load every spec (all or nothing) and every TTGIR file (problems collected, the rest checked)
    under paths, then every (name, TTGIR text) of `texts`; hardware: a `Hardware` overriding the
    modules' ttg.target. werror: every check's severity becomes error. differential: every distinct
    (encoding, shape) of the TTGIR also gets a ``matches_triton`` check (needs Triton: one line, exit 2),
    and the modules are checked with the installed Triton's semantics. version: the Triton version asked
    for (`checker.versions.VersionRequest`): a given one overrides a spec's ``triton_version:`` and a
    module's syntax (which then only warns); without one, a spec's key, else each module's syntax
    (`checker.syntax.version_marks`), decides."""
    if differential:
        from ..properties.matches_triton import require_lowering_triton  # lazy: only with --differential (Triton)
        require_lowering_triton("--differential")
        if version.given is None:
            version = dataclasses.replace(version, installed=differential_version())
    files = find_inputs(paths) if paths else []
    specs = [f for f in files if not is_ir(f)]
    by_spec: dict[str, list] = {}
    for ob in (load_paths(specs) if specs else []):
        if version.given is not None:
            ob = dataclasses.replace(ob, triton_version=str(version.given))
        by_spec.setdefault(ob.file, []).append(ob)
    out = Inputs(specs, version=version)
    with out.memo:
        for f in files:                 # checks in input order: a spec's, or a TTGIR file's
            if is_ir(f):
                out.kernels.append(read_ir_file(f, hardware, differential=differential, version=version))
                out.obligations += out.kernels[-1].obligations
            else:
                out.obligations += by_spec.get(f, [])
        for name, text in texts:
            out.kernels.append(kernel_checks(read_ttgir(text, name), name, hardware, differential=differential,
                                             text=text, version=version))
            out.obligations += out.kernels[-1].obligations
    if werror:
        out.obligations = [dataclasses.replace(ob, severity="error") for ob in out.obligations]
    return out


@collector_paused()
def verify_inputs(inputs: Inputs, *, only: Sequence[str] = (), skip: Sequence[str] = (), engine: str = "both",
                  timeout_ms: int = TIMEOUT_MS, jobs: int | None = None,
                  progress: Callable[[int], Any] | None = None, layouts: str = "failed",
                  triton_figures: bool = False, executor: str | None = None, json_report: bool = False,
                  pretty: bool | None = None) -> Checked:
    """Prove the selected checks (`--only` / `--skip` shell patterns) and build the report.
    progress(n): a callable taking each Outcome, with close() (`checker.run.runner.Progress`), or None.
    layouts: which records carry their lowered layouts for figures ("failed", "all", "none": the HTML
    report's --figures). triton_figures: every check whose property has them (`Property.triton_figures`)
    also reports Triton's own figures (as its spec key ``triton: true`` asks). executor: None (worker
    processes) or "ray" / "ray://HOST:PORT" (`checker.run.executors`). Identical checks are proved once
    (`checker.run.runner.proof_key`). json_report: a report.json will be written (indented or not as `pretty`
    says: `checker.reports.json_report.indents`); when compact, each record is encoded by the worker that
    proves it (`Checked.rows`).
    A selection that leaves nothing to check is bad input, unless the input is TTGIR only and nothing
    was selected away (`Checked.nothing`)."""
    obligations = select(inputs.obligations, only, skip)
    if len(obligations) < len(inputs.obligations):
        chosen = set(map(id, obligations))          # the run lowers the chosen ones: here, the others
        for ob in inputs.obligations:
            if id(ob) not in chosen:
                with using(ob.triton_version):
                    lower_operands(ob)
    if triton_figures:
        obligations = with_triton_figures(obligations)
    kernels = inputs.kernels
    problems = [(k.file, line, msg) for k in kernels for line, msg in k.problems]
    jobs = jobs or default_jobs()
    if not obligations and not problems:
        if kernels and not (only or skip) and not inputs.specs:
            report = build_report([], engine=engine, timeout_ms=timeout_ms, ttgir=[k.summary() for k in kernels])
            record_version(report, [], kernels, inputs.version)
            return Checked(report, [], [], jobs, nothing=True)
        raise CheckerError("no check is selected (see --only / --skip)")
    start = time.perf_counter()
    bar = progress(len(obligations)) if progress is not None and obligations else None
    try:
        with inputs.memo:
            outcomes = run(obligations, jobs=jobs, engine=engine, timeout_ms=timeout_ms, progress=bar,
                           layouts=layouts, executor=executor,
                           json_rows=json_report and not indents(pretty, len(obligations)))
    finally:
        if bar is not None:
            bar.close()
    by_file = {k.file: k for k in kernels}
    for o in outcomes:
        if o.skipped is not None:
            by_file[o.check.file].skip(o.check.line, o.check.op, o.skipped, o.check.property, o.check.python)
    outcomes = [o for o in outcomes if o.record is not None]
    report = build_report(outcomes, engine=engine, timeout_ms=timeout_ms, ttgir=[k.summary() for k in kernels])
    record_version(report, obligations, kernels, inputs.version)
    if any(ob.property == "matches_triton" for ob in obligations):
        from ..properties.matches_triton import triton_version  # lazy: only when a check compares with Triton
        report["summary"]["triton_installed"] = triton_version() or "unknown"
    return Checked(report, outcomes, problems, jobs, wall_seconds=time.perf_counter() - start)


def record_version(report: dict[str, Any], obligations: Sequence[Any], kernels: Sequence[Any],
                   request: VersionRequest = VersionRequest()) -> None:  # noqa: B008  immutable (frozen)
    """``summary.triton_version`` (the version every check followed; several, comma-separated, when the
    inputs asked for different ones) and ``summary.triton_version_reason`` (why: given, installed,
    detected from a module's syntax, a spec's key, or the newest supported by default)."""
    reasons: dict[str, list[str]] = {}
    for k in kernels:
        for m in k.modules:
            tv = m.get("triton_version")
            if tv:
                why = tv["reason"] + (f": {tv['detail']}" if tv["detail"] else "")
                reasons.setdefault(tv["version"], []).append(why)
    for ob in obligations:
        if ob.op is None:
            v = ob.triton_version or str(NEWEST)
            why = "given" if request.given else f"given: {ob.file}" if ob.triton_version else DEFAULT_REASON
            reasons.setdefault(v, []).append(why)
    if not reasons:
        reasons[str(NEWEST)] = [DEFAULT_REASON]
    summary = report["summary"]
    summary["triton_version"] = ", ".join(sorted(reasons, key=lambda v: parse_version(v)))
    summary["triton_version_reason"] = "; ".join(
        (f"{v}: " if len(reasons) > 1 else "") + _reasons_text(reasons[v])
        for v in sorted(reasons, key=lambda v: parse_version(v)))


def _reasons_text(reasons: list[str]) -> str:
    """The distinct reasons in order, the first two written out and the rest counted."""
    distinct = list(dict.fromkeys(reasons))
    more = f" and {len(distinct) - 2} more" if len(distinct) > 2 else ""
    return ", ".join(distinct[:2]) + more


def differential_version():
    """The installed Triton's version for --differential (`require_triton` has checked it is there); one
    layoutcheck does not model is refused in one line (exit 2)."""
    from ..properties.matches_triton import triton_version  # lazy: only with --differential (Triton)
    return parse_version(triton_version() or "", field="--differential")


def with_triton_figures(obligations: Sequence[Any]) -> list:
    """The checks with ``triton`` set wherever their property can report Triton's own figures."""
    out = []
    for ob in obligations:
        prop = PROPERTIES.get(ob.property)
        if prop is not None and prop.triton_figures and not ob.param("triton"):
            ob = dataclasses.replace(ob, params=tuple(p for p in ob.params if p[0] != "triton") + (("triton", True),))
        out.append(ob)
    return out


def is_ttgir_text(item: str) -> bool:
    """Whether a string given to `checker.verify` is TTGIR text rather than a path: it has a line
    break, or it is no existing path and reads like IR (``module``, ``#name =``, ``tt.func``)."""
    if "\n" in item:
        return True
    if item == "-" or os.path.exists(item):
        return False
    head = item.lstrip()
    return head.startswith(("module", "#", "tt.func", "builtin.module"))


def split_inputs(paths_or_text: Any) -> tuple[list[str], list[tuple[str, str]]]:
    """`checker.verify`'s first argument as (paths, [(name, TTGIR text)]): a path (str or os.PathLike),
    a TTGIR text, or a list of these; texts are named ``<text>`` (``<text-2>``, ... when several)."""
    items = [paths_or_text] if isinstance(paths_or_text, (str, os.PathLike)) else list(paths_or_text)
    if not items:
        raise CheckerError("give spec files, TTGIR files or TTGIR text to verify")
    paths, texts = [], []
    for item in items:
        if isinstance(item, os.PathLike):
            paths.append(os.fspath(item))
        elif not isinstance(item, str):
            raise CheckerError(f"expected a path or TTGIR text, got {type(item).__name__}")
        elif is_ttgir_text(item):
            texts.append(item)
        else:
            paths.append(item)
    named = [(TEXT_NAME if len(texts) == 1 else f"<text-{i + 1}>", t) for i, t in enumerate(texts)]
    return paths, named


def names_file(path: str, given: str) -> bool:
    """Whether --explain's FILE names the input `path`: the same file, or a suffix of its path made of
    whole components ('matmul.ttgir', 'kernels/matmul.ttgir' name 'specs/kernels/matmul.ttgir')."""
    import os
    if path == given:
        return True
    if path.startswith("<") or given.startswith("<"):
        return False
    if os.path.isabs(given) or given.startswith("."):
        if os.path.realpath(path) == os.path.realpath(given):
            return True
    want = [c for c in os.path.normpath(given).replace("\\", "/").split("/") if c not in ("", ".")]
    have = [c for c in os.path.normpath(path).replace("\\", "/").split("/") if c not in ("", ".")]
    return bool(want) and have[-len(want):] == want


@dataclass
class Explained:
    """What --explain shows for one TTGIR line: the reader's problems there, every check derived from it
    with its result (verdicts first), and each distinct (operand, shape) with its lowered layout (or
    why it does not lower)."""

    file: str
    line: int
    problems: list[str]
    checks: list[tuple[Any, Any]]
    layouts: list[tuple[str, Any, tuple[int, ...], Any]]


def explain(kernels: Sequence[Any], where: str, *, engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Explained:
    """--explain [FILE:]LINE over the TTGIR inputs read (`KernelChecks`): FILE names an input by its path or
    a suffix of it (`names_file`)."""
    file, _, line_text = where.rpartition(":")
    if not (line_text.isascii() and line_text.isdigit()):         # ASCII digits only ('４' is no line)
        raise CheckerError(f"give a line number, or FILE:LINE, got {where!r}", field="--explain")
    line = int(line_text)
    chosen = [k for k in kernels if not file or names_file(k.file, file)]
    if len(chosen) != 1:
        if file and len(chosen) > 1:
            raise CheckerError(f"{file} names {len(chosen)} TTGIR inputs ({', '.join(k.file for k in chosen)}): "
                               "give more of its path", field="--explain")
        named = f" named {file} (inputs: {', '.join(k.file for k in kernels) or 'none'})" if file else ""
        raise CheckerError(f"--explain needs exactly one TTGIR input{named}", field="--explain")
    k = chosen[0]
    type_checks = ("well_formed", "surjective", "injective_up_to_broadcast", "invertible")
    obs = sorted((ob for ob in k.obligations if ob.line == line), key=lambda ob: ob.property in type_checks)
    problems = [msg for ln, msg in k.problems if ln == line]
    if not obs and not problems:
        raise CheckerError(f"no check is derived from line {line}", file=k.file, line=line, field="--explain")
    checks = [(ob, evaluate(ob, engine, timeout_ms)) for ob in obs]     # each under its version
    layouts, shown = [], set()
    for ob in obs:
        for role, enc in ob.operands:
            shape = tuple(ob.shape if role not in ("a", "b") else ob.param(f"{role}_shape"))
            if (enc, shape) in shown:
                continue
            shown.add((enc, shape))
            try:
                with using(ob.triton_version):
                    built = lower(enc, list(shape))
            except CheckerError as e:
                built = e.message
            layouts.append((role, enc, shape, built))
    return Explained(k.file, line, problems, checks, layouts)


__all__ = ["Inputs", "Checked", "Explained", "load_inputs", "verify_inputs", "explain", "split_inputs",
           "is_ttgir_text", "names_file", "with_triton_figures"]
