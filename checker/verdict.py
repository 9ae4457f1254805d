"""One engine's answer, the type every engine returns and `checker.properties.result.run_engines` folds: an
`EngineVerdict` (``holds``, ``fails`` with a `Counterexample`, or ``unknown``); `Engines`, the choice of engines
and the solvers' time limit passed down as one value; and the check of a time limit. It sits below `checker.smt`
(which turns a solver's answer into a verdict) and every property.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import CheckerError, InternalError

STATUSES = ("holds", "fails", "unknown")
CHOICES = ("f2", "z3", "both", "all")


@dataclass(frozen=True)
class Engines:
    """Which engines decide a property, and how long an SMT solver may take on one obligation: the one value
    the public API, the runner and every property pass down.

    ``choice``: "f2" (GF(2) algebra), "z3", "both" (f2 and z3, which must agree) or "all" (both and the second
    SMT solver, `checker.solvers`); checked where it is used (`checker.properties.result.run_engines`), so that a
    bad choice is reported after the operands' own errors, as the API always has. ``timeout_ms``: a positive
    number of milliseconds per obligation, or None for no limit (`check_timeout`)."""

    choice: str = "both"
    timeout_ms: int | None = None


DEFAULT_ENGINES = Engines()      # both engines, no time limit: a property's default
TIMEOUT_MS = 10_000              # an SMT solver's limit per obligation at the API, the CLI and the runner


@dataclass
class Counterexample:
    """A concrete witness that a property fails.

    ``kind`` names the shape of the witness (``missing_coordinate``,
    ``collision``, ``mismatch``, ``not_local``, ``out_of_bounds``, ...);
    ``data`` holds its values, JSON-ready: hardware indices as dicts named by
    component (``{"register": 3, "lane": 5, "warp": 0, "block": 0}``),
    coordinates as ``{"dim0": 4, "dim1": 2}``, certificates as ints.
    ``recompute`` recomputes the claim from ``data`` on the concrete layout and
    returns True when the witness is genuine; ``replay()`` calls it on ``data``.
    """

    kind: str
    data: dict[str, Any]
    recompute: Callable[[dict[str, Any]], bool] = field(repr=False, compare=False)

    def replay(self) -> bool:
        return bool(self.recompute(self.data))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.data}


@dataclass
class EngineVerdict:
    """One engine's answer: status, seconds spent, witness, and why."""

    engine: str
    status: str
    seconds: float = 0.0
    counterexample: Counterexample | None = None
    explanation: str = ""
    certificate: Any = None   # a checker.certificate.Certificate for an F2 "holds", where there is one

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise InternalError(f"engine {self.engine} answered unknown status {self.status!r}")
        if (self.status == "fails") != (self.counterexample is not None):
            raise InternalError(f"engine {self.engine}: a 'fails' verdict needs exactly one counterexample "
                                f"(status {self.status!r})")

    def to_dict(self) -> dict[str, Any]:
        return {"engine": self.engine, "status": self.status, "seconds": self.seconds,
                "counterexample": self.counterexample.to_dict() if self.counterexample else None,
                "explanation": self.explanation,
                **({"certificate": self.certificate.to_dict()} if self.certificate is not None else {})}


def check_timeout(timeout_ms: Any, field: str = "timeout_ms") -> int | None:
    """A solver limit in milliseconds: a positive integer, or None (no limit). 0 and negative values are
    refused (`CheckerError` naming `field`): Z3 would read 0 as "no limit"."""
    if timeout_ms is None:
        return None
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms < 1:
        raise CheckerError(f"must be a positive number of milliseconds, got {timeout_ms!r}", field=field)
    return timeout_ms
