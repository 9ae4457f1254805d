"""Running obligations: each one proved, judged against its expectation, and turned into a report record.

    outcomes = run(obligations, jobs=8, engine="both", timeout_ms=10_000)

A check *passes* when its verdict is the expected one (``holds`` or
``fails``; ``unknown`` passes nothing) and, where given, the conflict count
(``details["conflicts"]``) and the conversion level (``details["level"]``)
are the expected ones.

Determinism. Checks run in worker processes (``jobs``; default: one
per core) in chunks, or as Ray tasks in batches (``executor="ray"`` or
``"ray://HOST:PORT"``, `checker.run.executors`), and come back in obligation
order. A record holds only what the obligation and the proof determine (no
times, no process ids), so the records, and the JSON report built from
them, are byte-identical for every ``jobs`` and executor. Wall times travel
beside the record (`Outcome.seconds`).

Sharing. Identical checks (same property, operands, shapes, element type,
hardware and parameters: `proof_key`) are proved once per run: the first
one in obligation order is proved, the others get its proof in a record of
their own (their id, expectation, severity and source; `Outcome.seconds`
of 0 with ``same_as`` naming the proved one). Each distinct (encoding,
shape) is lowered once per process (`checker.encodings.lower` caches it;
a spec's operands are lowered by the worker that proves the check,
`checker.spec.lower_operands`, so a sweep's lowering is spread over the
workers too).
With ``engine="both"`` (or ``"all"``) the record's witness and explanation are
the GF(2) engine's and Z3 (and Bitwuzla) contribute their verdicts only; with ``engine="z3"`` each
obligation gets a fresh Z3 context, so Z3's model does not depend on what
ran before it. (A Z3 timeout, ``unknown``, depends on the machine's load and
is the one thing that can differ between runs.)

Errors. For a check of a spec file, a `CheckerError` raised while lowering
its operands (located at the operand's line) or while proving (input the
spec could not rule out, e.g. a property's own precondition; located at the
check's line) is bad input; an `InternalError` (engines disagree, a witness
does not replay) or any other exception is a bug. A spec's checks are
proved in obligation order, before any kernel's (`proving_order`), so the
first such answer is the first in that order: it stops the run there and is
raised, and the same run always fails the same way.

A check derived from TTGIR (``ob.op`` set) never stops the run: a
`CheckerError` means the models do not cover the case, and the check is
*skipped* with that reason (`Outcome.skipped`, no record); any other
exception is a bug in that one check, recorded with verdict ``error`` (it
fails, and the command exits 3 once everything else is checked and
reported).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TextIO

from .. import smt
from ..encodings import lower
from ..errors import CheckerError, InternalError
from ..padded import linear_part
from ..properties.result import Result
from ..registry import PROPERTIES
from ..spec import Check, lower_operands
from ..syntax.mlir_attr import print_attribute
from ..verdict import TIMEOUT_MS
from ..versions import using
from .record import encode_compact


@dataclass
class Outcome:
    """One obligation's report record and its wall times ({"total": s, "engines": {name: s}})."""

    record: dict[str, Any] | None
    seconds: dict[str, Any]
    skipped: str | None = None        # why a TTGIR check was not made (then there is no record)
    check: Any = None                 # the Check of a skipped check
    row: str | None = None            # the record's compact JSON text, where its worker made it (Task.json_row)

    @property
    def passed(self) -> bool:
        return self.record is None or self.record["passed"]


def evaluate(ob: Check, engine: str = "both", timeout_ms: int = TIMEOUT_MS) -> Result:
    """Decide the check's property under the check's Triton version: its `checker.registry.PROPERTIES`
    entry's ``decide``; a check that stands for a bug met while its module's checks were derived (parameter
    ``internal_error``) raises it as an `InternalError`."""
    prop = PROPERTIES.get(ob.property)
    if prop is None:
        raise InternalError(f"no property {ob.property!r} in the registry")
    bug = ob.param("internal_error")        # the reader's own bug at this op (`Builder.internal_error`)
    if bug is not None:
        raise InternalError(bug)
    with using(ob.triton_version):
        return prop.run(ob, engine, timeout_ms)


def judge(ob: Check, r: Result) -> str | None:
    """None when the result meets the obligation's expectation, else why not (one line)."""
    return _judged(ob, r.status, r.details)


def _judged(ob: Check, status: str, details: dict) -> str | None:
    if status != ob.expect:
        return f"expected {ob.expect}, got {status}"
    if ob.expect_conflicts is not None and details.get("conflicts") != ob.expect_conflicts:
        return f"expected {ob.expect_conflicts} conflicts, got {details.get('conflicts')}"
    if ob.expect_level is not None and details.get("level") != ob.expect_level:
        return f"expected level {ob.expect_level}, got {details.get('level')}"
    return None


PROOF_FIELDS = ("verdict", "engines", "counterexample", "explanation", "details")


def record(ob: Check, r: Result, layouts: str = "failed") -> dict[str, Any]:
    """The report record of one check (docs/report-schema.md), as plain JSON data; `layouts` says which
    records carry their lowered layouts (`shown_layouts`, for figures): "failed" (default), "all", "none"."""
    proof = {"verdict": r.status, "engines": {name: v.status for name, v in r.verdicts.items()},
             "counterexample": r.counterexample.to_dict() if r.counterexample else None,
             "explanation": r.explanation, "details": r.details}
    return record_of_proof(ob, proof, layouts)


def record_of_proof(ob: Check, proof: dict[str, Any], layouts: str = "failed") -> dict[str, Any]:
    """`record` from the proof's part of a record (`PROOF_FIELDS`: what the proof alone determines), so
    that an identical check reuses another's proof in a record of its own."""
    failure = _judged(ob, proof["verdict"], proof["details"])
    rec = {"id": ob.id, "property": ob.property,
           "operands": {role: print_attribute(enc) for role, enc in ob.operands},
           "shape": list(ob.shape), "layout_shape": list(ob.layout_shape) if ob.layout_shape else None,
           "dtype": ob.dtype, "element_bit_width": ob.dtype_bits,
           "hardware": ob.hardware.name if ob.hardware else None, "parameters": dict(ob.params),
           "expect": ob.expect, "expect_conflicts": ob.expect_conflicts, "expect_level": ob.expect_level,
           "verdict": proof["verdict"], "passed": failure is None, "failure": failure,
           "engines": proof["engines"], "counterexample": proof["counterexample"],
           "explanation": proof["explanation"], "details": proof["details"],
           "severity": ob.severity, "source": {"file": ob.file, "line": ob.line}}
    if ob.op is not None:
        rec["source"]["op"] = ob.op
    if ob.python is not None:
        rec["source"]["python"] = {"file": ob.python[0], "line": ob.python[1], "col": ob.python[2]}
    if layouts == "all" or (layouts == "failed" and failure is not None):
        rec["layouts"] = shown_layouts(ob)
    try:
        return json_data(rec)
    except (TypeError, ValueError) as e:
        raise InternalError(f"the result of check '{ob.id}' is not JSON data: {e}") from None


def json_data(value: Any) -> Any:
    """What ``json.loads(json.dumps(value))`` gives, without the text in between: a copy of its own, tuples as
    lists, non-string keys as JSON writes them ("1", "true", "null"); TypeError or ValueError where json.dumps
    raises them. Plain str, int, float, bool, None, dict, list and tuple are copied here (a record: 3x faster
    than through the text); any other value goes through json itself, so that it is read exactly as JSON
    reads it."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:            # (scalar items copied in place: most of a record's values are)
        return {key if type(key) is str else _json_key(key): item if type(item) in _SCALARS else json_data(item)
                for key, item in value.items()}
    if kind is list or kind is tuple:
        return [item if type(item) in _SCALARS else json_data(item) for item in value]
    return json.loads(json.dumps(value))


_SCALARS = frozenset((str, int, float, bool, type(None)))      # what `json_data` gives back as it is


def _json_key(key: Any) -> str:
    if type(key) in (int, float, bool) or key is None:
        return json.dumps(key)
    return json.loads(json.dumps({key: 0})).popitem()[0]      # as JSON writes it, or its TypeError


def shown_layouts(ob: Check) -> dict[str, Any]:
    """The lowered layouts a failed check's figures show ({role: LinearLayout.to_dict()}, a padded layout's
    linear component), each at the shape the check reads it at; operands that do not lower are left out.
    Report renderers draw from these and never parse or lower."""
    out = {}
    for role, enc in ob.operands:
        shape = (ob.param("view_of") if role == "shared" and ob.param("view_of") else
                 ob.param(f"{role}_shape") or ob.layout_shape or ob.shape)
        try:
            out[role] = linear_part(lower(enc, shape)).to_dict()
        except (CheckerError, TypeError, ValueError):
            continue
    return out


class Task(NamedTuple):
    """One obligation to prove, as a worker gets it. json_row: also encode its record as a line of a compact
    report.json (`checker.reports.json_report.encode_compact`), there, where the work is spread."""

    check: Check
    engine: str
    timeout_ms: int
    layouts: str
    json_row: bool = False


def _work(task: Task) -> tuple:
    """One obligation in a worker, under its Triton version: ("ok", record, seconds, row), ("skip", why,
    check) or ("bad"/"bug", message, file, line, field); row: the record's compact JSON text when the task
    asks for it, else None."""
    with using(task.check.triton_version):
        return _work_in_version(task)


def _work_in_version(task: Task) -> tuple:
    ob, engine, timeout_ms, layouts, json_row = task
    if engine == "z3":
        smt.fresh_context()        # a Z3 model depends on the terms its context saw: one per check
    start = time.perf_counter()
    try:
        lower_operands(ob)
    except CheckerError as e:           # located at the operand in its spec
        return ("bad", e.message, e.file, e.line, e.field)
    try:
        r = evaluate(ob, engine, timeout_ms)
        rec = record(ob, r, layouts)
    except CheckerError as e:
        if ob.op is not None:
            return ("skip", e.message if not e.field else f"{e.field}: {e.message}", ob)
        return ("bad", f"check '{ob.id}': {e}", ob.file, _line_of(ob, e.field), None)
    except Exception as e:  # a bug: report it as one, never as a traceback from a worker
        message = str(e) if isinstance(e, InternalError) else f"{type(e).__name__}: {e}"
        if ob.op is not None:
            return ("ok", error_record(ob, message), {"total": time.perf_counter() - start, "engines": {}}, None)
        return ("bug", f"check '{ob.id}': {message}", ob.file, ob.line, None)
    seconds = {"total": time.perf_counter() - start, "engines": r.seconds}
    return ("ok", rec, seconds, encode_compact(rec) if json_row else None)


def _line_of(ob: Check, field: str | None) -> int:
    """The spec line of the parameter a decision's error names (``strides[1]`` -> the ``strides`` key), else
    the check's own line."""
    key = (field or "").split("[", 1)[0].split(".", 1)[0]
    return dict(ob.param_lines).get(key) or ob.line


def error_record(ob: Check, message: str) -> dict[str, Any]:
    """The record of a TTGIR check that raised an internal error: verdict ``error``, failed."""
    rec = record(ob, Result(ob.property, "unknown", {}, None, "", {}))
    rec.update(verdict="error", passed=False, failure=f"internal error: {message}", severity="error",
               engines={}, explanation=f"internal error (a bug in layoutcheck): {message}")
    return rec


def default_jobs() -> int:
    return os.cpu_count() or 1


def _frozen(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return tuple(_frozen(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _frozen(x)) for k, x in v.items()))
    return v


def _frozen_params(params: Any) -> Any:
    """`_frozen` of a check's parameters: most are hashable already (tuples of scalars), and `_frozen` gives
    such a value back equal."""
    try:
        hash(params)
    except TypeError:
        return _frozen(params)
    return params


def proof_key(ob: Check) -> tuple | None:
    """What a check's proof depends on (its property, operands, shapes, element type, hardware and
    parameters; whether it comes from TTGIR, which decides what an error means), or None when a part of
    it cannot be compared."""
    key = (ob.property, ob.operands, ob.shape, ob.layout_shape, ob.dtype, ob.dtype_bits, ob.hardware,
           _frozen_params(ob.params), ob.op is None, ob.triton_version)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _shared(ob: Check, answer: tuple, first: Check, layouts: str) -> tuple:
    """The answer of `ob` from the answer of the identical check `first` (proved in its place)."""
    kind = answer[0]
    if kind == "skip":
        return ("skip", answer[1], ob)
    if kind in ("bad", "bug"):
        return (kind, answer[1].replace(f"check '{first.id}'", f"check '{ob.id}'", 1), ob.file, ob.line, answer[4])
    rec = answer[1]
    if rec["verdict"] == "error":
        new = error_record(ob, rec["failure"][len("internal error: "):])
    else:
        new = record_of_proof(ob, {k: rec[k] for k in PROOF_FIELDS}, layouts)
    return ("ok", new, {"total": 0.0, "engines": {}, "same_as": first.id}, None)


def run(obligations: Sequence[Check], *, jobs: int | None = None, engine: str = "both",
        timeout_ms: int = TIMEOUT_MS, progress: Callable[[Outcome], None] | None = None,
        layouts: str = "failed", executor: str | None = None, json_rows: bool = False) -> list[Outcome]:
    """Every obligation's Outcome, in obligation order (module docstring). executor: None (worker
    processes, `jobs` of them), or "ray" / "ray://HOST:PORT" (Ray tasks, `checker.run.executors`). json_rows:
    each record's compact JSON text is made by the worker that proves it (`Outcome.row`)."""
    first: dict[tuple, int] = {}
    copies: dict[int, list[int]] = {}         # index proved -> the identical checks after it
    proved = []
    for i, ob in enumerate(obligations):
        key = proof_key(ob)
        if key is not None and key in first:
            copies.setdefault(first[key], []).append(i)
            continue
        if key is not None:
            first[key] = i
        proved.append(i)
    proved.sort(key=lambda i: proving_order(obligations[i], i))
    tasks = [Task(obligations[i], engine, timeout_ms, layouts, json_rows) for i in proved]
    answers: list = [None] * len(obligations)

    def take(i, answer):
        answers[i] = answer
        if answer[0] in ("bad", "bug"):     # a spec's first in input order (`proving_order`)
            kind, message, file, line, field = answer
            if kind == "bad":
                raise CheckerError(message, file=file, line=line, field=field)
            raise InternalError(f"{file}:{line}: {message}")
        if progress is not None:
            progress(_outcome(answer))

    with proof_sharing(engine):
        for i, answer in zip(proved, _answers(tasks, jobs, executor)):
            take(i, answer)
            for j in copies.get(i, ()):
                take(j, _shared(obligations[j], answer, obligations[i], layouts))
    return [_outcome(answer) for answer in answers]


def proving_order(ob: Check, index: int) -> tuple:
    """The order checks are proved in (their records keep obligation order): a spec's checks first, in
    obligation order (the first bad one stops the run, module docstring), then a kernel's checks property by
    property. A kernel's checks are independent (each is a function of its own check), so this changes no
    record; it runs one property's code and solver calls back to back while they are still in the processor's
    caches: on 12 kernels of tools/compile_kernels.py, 0.953x the time of obligation order (interleaved, cold
    caches between runs; 0.92-0.96x on matmul and attention)."""
    kernel = ob.op is not None
    return (kernel, ob.property if kernel else "", index)


def proof_sharing(engine: str):
    """`smt.proofs_shared` for the checks of one run (or one Ray batch), except with engine "z3": there a
    check's witnesses are Z3's models, each check in a fresh context (`_work`), and an obligation answered
    from the shared proofs would change what that context has seen before the check's later ones, so a
    witness would depend on which checks ran first in the process (on --jobs)."""
    return smt.proofs_shared() if engine != "z3" else contextlib.nullcontext()


def _answers(tasks: list, jobs: int | None, executor: str | None) -> Iterator[tuple]:
    """Each task's answer (`_work`), in task order: in this process, in worker processes, or on Ray."""
    if executor not in (None, "", "local", "processes"):
        from .executors import ray_answers  # lazy: only the optional Ray executor needs it (Ray is an extra)
        yield from ray_answers(tasks, executor, work_batch)
        return
    jobs = max(1, min(jobs or default_jobs(), len(tasks)))
    if jobs == 1:
        for task in tasks:
            yield _work(task)
        return
    chunks = guided_chunks(len(tasks), jobs)
    import gc
    gc.freeze()         # a forked worker's collector leaves the parent's objects alone: their pages stay shared
    try:
        if sys.platform.startswith("linux"):          # a chunk is sent as its number: the tasks are forked along
            from .forked import forked_answers  # lazy: pickle and selectors (2.4 ms of a process) only with workers
            for answers in forked_answers(lambda k: [_work(tasks[i]) for i in chunks[k]], len(chunks), jobs):
                yield from answers
            return
        import multiprocessing  # elsewhere (macOS, Windows) fork is unsafe: spawned workers get their tasks
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            for answers in pool.imap(work_batch, [tasks[r.start:r.stop] for r in chunks]):
                yield from answers
    finally:
        gc.unfreeze()


def work_batch(tasks: Sequence[tuple]) -> list[tuple]:
    """`_work` on each of a batch of tasks sent whole (to a spawned worker, or as one Ray task), sharing the
    batch's unsat proofs as a run in one process does (`proof_sharing`)."""
    with proof_sharing(tasks[0][1] if tasks else "both"):
        return [_work(task) for task in tasks]


def guided_chunks(tasks: int, workers: int, largest: int = 256, smallest: int = 8) -> list[range]:
    """The tasks 0..tasks-1 in consecutive chunks, each handed to the next free worker: each a share of
    what is left (a quarter of a worker's part of it), at most `largest` (0.2 s of a sweep's checks at
    ~0.7 ms each) and at least `smallest`. Large chunks first cost little to hand out; the small last ones
    let the workers finish together (guided scheduling)."""
    out, start = [], 0
    while start < tasks:
        size = max(smallest, min(largest, (tasks - start) // (4 * workers)))
        out.append(range(start, min(tasks, start + size)))
        start += size
    return out


def _outcome(answer: tuple) -> Outcome:
    if answer[0] == "skip":
        return Outcome(None, {"total": 0.0, "engines": {}}, skipped=answer[1], check=answer[2])
    return Outcome(answer[1], answer[2], row=answer[3])


class Progress:
    """Progress of a run, fit to where it goes (`--quiet`: no Progress at all).

    On a terminal: a live bar (tqdm) with the count and the time left (estimated from all the checks done
    so far, not from the last few: a slow first check does not promise hours), drawn from the start (0/N
    before the first check ends) and redrawn at most ten times a second. Elsewhere (a CI log, a file): a
    first line once `gap` seconds have passed, then one at every 10% of the checks (none within `gap`
    seconds of the last), at least one every `every` seconds while checks finish, and the last one at
    100%; never one line per check (a run of a second or less prints the last line only):

        verify: 61/608 checks (10%), 0 failed, 24.1 checks/s, about 21s left
    """

    def __init__(self, total: int, stream: TextIO | None = None, tty: bool | None = None, every: float = 5.0,
                 gap: float = 1.0, clock: Callable[[], float] = time.monotonic):
        stream = sys.stderr if stream is None else stream        # the stderr of the time (pytest swaps it)
        self.total, self.stream, self.done, self.failed, self.warnings, self.skipped = total, stream, 0, 0, 0, 0
        self.tty = stream.isatty() if tty is None else tty
        self.every, self.gap, self.clock = every, gap, clock
        self.start = self._said = clock()
        self._decile = 0
        self.bar = None
        if self.tty:
            from tqdm import tqdm  # lazy: the progress bar only on a terminal
            try:                    # a terminal that reports no size (a bare pty) gets 100 columns and 20 lines
                size = os.get_terminal_size(stream.fileno())     # (tqdm hides every bar below a height of 0)
                sized = size.columns > 0 and size.lines > 0
            except (OSError, ValueError, AttributeError):     # io.UnsupportedOperation is both
                sized = False
            self.bar = tqdm(total=total, file=stream, unit="check", desc="verify", dynamic_ncols=sized,
                            ncols=None if sized else 100, nrows=None if sized else 20,
                            mininterval=0.1, smoothing=0, leave=True,      # time left: from all the work done
                            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "    # short: the bar
                                       "[{elapsed}<{remaining}]{postfix}")                       # keeps its width

    def __call__(self, outcome: Outcome) -> None:
        self.done += 1
        if not outcome.passed:
            if outcome.record.get("severity") == "warning":
                self.warnings += 1
            else:
                self.failed += 1
            if self.bar is not None:
                self.bar.set_postfix_str(self._tally(), refresh=False)
        self.skipped += outcome.skipped is not None
        if self.bar is not None:
            self.bar.update(1)
            return
        now = self.clock()
        decile = 10 * self.done // max(1, self.total)
        first = self._said == self.start and now - self.start >= self.gap      # a first line after `gap` s
        if self.done == self.total or first or (decile > self._decile and now - self._said >= self.gap) \
                or now - self._said >= self.every:
            self._decile, self._said = decile, now
            self.stream.write(self.line(now) + "\n")
            self.stream.flush()

    def line(self, now: float) -> str:
        """The plain progress line at time `now`."""
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        text = (f"verify: {self.done}/{self.total} checks ({100 * self.done // max(1, self.total)}%), "
                f"{self._tally()}, {rate:.1f} checks/s")
        if self.done < self.total and rate > 0:
            text += f", about {self._duration((self.total - self.done) / rate)} left"
        elif self.done == self.total:
            text += f", {self._duration(elapsed)} in all"
        return text

    def _tally(self) -> str:
        text = f"{self.failed} failed"
        if self.warnings:
            text += f", {self.warnings} warning{'s' if self.warnings != 1 else ''}"
        if self.skipped:
            text += f", {self.skipped} not checked"
        return text

    def close(self) -> None:
        """End the bar (the line stays on the terminal); nothing to do off a terminal."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


    @staticmethod
    def _duration(seconds: float) -> str:
        """12s, 3m05s, 1h02m."""
        s = int(round(seconds))
        if s < 60:
            return f"{s}s"
        if s < 3600:
            return f"{s // 60}m{s % 60:02d}s"
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
