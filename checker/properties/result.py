"""What a property check returns, and how several engines' answers become one.

A property is a claim about a layout ("every coordinate is held by some
thread"). Each *engine* ("f2": GF(2) algebra, "z3": an SMT solver, or any
other decision procedure) answers with an `EngineVerdict`: ``holds``,
``fails`` (with a `Counterexample`) or ``unknown`` (it gave up, e.g. a solver
timeout). `run_engines` runs the requested engines and folds their verdicts into
one `Result`:

* every counterexample, from any engine, is *replayed* first (plain integer
  arithmetic on the concrete layout, no algebra and no solver); one that does
  not replay is a bug and raises `InternalError`;
* two engines that decide differently (one ``holds``, one ``fails``) are a bug
  and raise `InternalError` naming both answers;
* the result is ``unknown`` as soon as one requested engine is ``unknown``
  (the other engine's answer is kept in the verdicts and the explanation), so
  a timeout never turns into ``holds``;
* every certificate (`checker.certificate`: the F2 engine's proof that a
  property holds) is checked by the independent checker; one that does not
  check raises `InternalError`, and so does an F2 ``holds`` without one where
  the caller says the property has certificates (``certified=True``).

Engines: "f2", "z3", "both" (f2 and z3), "all" (f2, z3 and the second SMT
solver of `checker.solvers`, Bitwuzla, which decides the same SMT-LIB2
obligations as Z3 and whose models are decoded and replayed like Z3's).

Everything in a `Result` is JSON-serializable through ``to_dict()``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import smt
from ..certificate import CertificateError
from ..errors import CheckerError, InternalError
from ..solvers import engine as second_engine
from ..solvers import require as require_second_solver
from ..verdict import CHOICES, STATUSES, Counterexample, Engines, EngineVerdict, check_timeout  # noqa: F401  (here too)

ENGINES = CHOICES
SECOND_SOLVER = "bitwuzla"  # checker.solvers.SOLVER (not imported here: the extra is optional)


@dataclass
class Result:
    """The verdict on one property of one layout (or pair of layouts)."""

    property: str
    status: str
    verdicts: dict[str, EngineVerdict]
    counterexample: Counterexample | None
    explanation: str
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        return self.status == "holds"

    @property
    def fails(self) -> bool:
        return self.status == "fails"

    @property
    def seconds(self) -> dict[str, float]:
        return {name: v.seconds for name, v in self.verdicts.items()}

    def __bool__(self) -> bool:
        """True exactly when the property holds: ``if prove.injective(L):`` reads as it should
        (``fails`` and ``unknown`` are both False)."""
        return self.status == "holds"

    def __repr__(self) -> str:
        """One short line: ``<Result injective fails: register=1 and lane=0 both hold (0, 0)>``."""
        text = self.explanation if len(self.explanation) <= 120 else self.explanation[:117] + "..."
        return f"<Result {self.property} {self.status}" + (f": {text}" if text else "") + ">"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (``json.dumps(r.to_dict())`` works)."""
        return {"property": self.property, "status": self.status,
                "counterexample": self.counterexample.to_dict() if self.counterexample else None,
                "explanation": self.explanation,
                "verdicts": {n: v.to_dict() for n, v in self.verdicts.items()},
                "details": self.details}

    def to_json(self, **kwargs: Any) -> str:
        """``to_dict()`` as JSON text (keyword arguments go to `json.dumps`)."""
        import json
        return json.dumps(self.to_dict(), **kwargs)


Engine = Callable[[], EngineVerdict]


@dataclass(frozen=True)
class Solver:
    """An engine by name. A property gives its own runner for "f2" and "z3"; a solver that decides the SMT-LIB2
    obligations another engine builds (``borrows``) runs that engine's runner made into its own by ``wrap``
    (`checker.solvers.engine`: the obligations routed to it), and needs ``require`` (its optional package)."""

    name: str
    borrows: str | None = None
    wrap: Callable[[Engine], Engine] | None = None
    require: Callable[[], None] | None = None


SOLVERS: dict[str, Solver] = {"f2": Solver("f2"), "z3": Solver("z3"),
                              SECOND_SOLVER: Solver(SECOND_SOLVER, "z3", second_engine, require_second_solver)}
# each engine choice -> the solvers it runs, in this order (f2 first: its explanation says why)
CHOSEN: dict[str, tuple[str, ...]] = {"f2": ("f2",), "z3": ("z3",), "both": ("f2", "z3"),
                                      "all": ("f2", "z3", SECOND_SOLVER)}


def engines_for(engine: str) -> tuple[str, ...]:
    """The solver names a choice runs: "both" -> ("f2", "z3"), "all" -> ("f2", "z3", "bitwuzla")
    (a `CheckerError` saying how to install it when the second solver is missing)."""
    if engine not in CHOSEN:
        raise CheckerError(f"engine must be one of {list(ENGINES)}, got {engine!r}", field="engine")
    names = CHOSEN[engine]
    for n in names:
        if SOLVERS[n].require is not None:
            SOLVERS[n].require()
    return names


def timed(name: str, run: Callable[[], EngineVerdict]) -> EngineVerdict:
    """Run one engine and stamp its wall time on the verdict."""
    start = time.perf_counter()
    verdict = run()
    verdict.seconds = time.perf_counter() - start
    verdict.engine = name
    return verdict


def run_engines(prop: str, engines: Engines, runners: Mapping[str, Engine], *,
                details: dict[str, Any] | None = None, certified: bool = False) -> Result:
    """Run the solvers `engines` chooses (from `runners`, under its time limit: `smt.time_limit`), replay every
    witness, check every certificate, require agreement, and build the Result (module docstring). A solver that
    borrows another's runner (`SOLVERS`) runs it with its obligations routed to it. ``certified``: the F2
    engine's ``holds`` must carry a certificate."""
    verdicts: dict[str, EngineVerdict] = {}
    with smt.time_limit(engines.timeout_ms):
        for name in engines_for(engines.choice):
            run = runners.get(name)
            solver = SOLVERS[name]
            if run is None and solver.wrap is not None and solver.borrows in runners:
                run = solver.wrap(runners[solver.borrows])
            if run is None:
                raise CheckerError(f"property {prop!r} has no {name} engine", field="engine")
            verdicts[name] = timed(name, run)
    for v in verdicts.values():
        if v.counterexample is not None and not v.counterexample.replay():
            raise InternalError(f"{prop}: the {v.engine} counterexample {v.counterexample.to_dict()} "
                                f"does not replay on the concrete layout")
        check_certificate(prop, v, certified)
    decided = {n: v for n, v in verdicts.items() if v.status != "unknown"}
    if len({v.status for v in decided.values()}) > 1:
        answers = "; ".join(f"{n}: {v.status} ({v.explanation})" for n, v in verdicts.items())
        raise InternalError(f"{prop}: engines disagree: {answers}")
    unknown = [v for v in verdicts.values() if v.status == "unknown"]
    if unknown:
        status = "unknown"
        explanation = "; ".join(f"{v.engine}: {v.status}" + (f" ({v.explanation})" if v.explanation else "")
                                for v in verdicts.values())
        witness = None
    else:
        first = next(iter(verdicts.values()))  # f2 first: its explanation says why
        status = first.status
        explanation = first.explanation
        witness = first.counterexample
    return Result(prop, status, verdicts, witness, explanation, dict(details or {}))


def check_certificate(prop: str, v: EngineVerdict, required: bool = False) -> None:
    """Run the independent checker on v's certificate (`checker.certificate`): `InternalError` when it
    does not check, or when `required` and an F2 ``holds`` has none."""
    if v.certificate is None:
        if required and v.engine == "f2" and v.status == "holds":
            raise InternalError(f"{prop}: the f2 engine's 'holds' carries no certificate")
        return
    if v.status != "holds":
        raise InternalError(f"{prop}: the {v.engine} engine attached a certificate to a {v.status!r} verdict")
    try:
        v.certificate.verify()
    except CertificateError as e:
        raise InternalError(f"{prop}: the {v.engine} certificate does not check: {e}") from None
