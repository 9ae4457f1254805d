"""The second SMT solver of ``engine="all"``: Bitwuzla, reading the SMT-LIB2 text of each obligation.

``engine="all"`` runs three engines on every property that has a Z3 engine:
the GF(2) engine ("f2"), Z3 ("z3") and Bitwuzla ("bitwuzla", from the
optional extra ``pip install bitwuzla``). Bitwuzla decides
exactly the SMT-LIB2 script ``layoutcheck smt`` writes (`smt.to_smtlib`):
the property's Z3 engine runs a second time inside `smt.solved_by(solve, "bitwuzla")`,
so each `smt.Obligation` it builds is printed as SMT-LIB2, parsed by
Bitwuzla's own parser and checked there; a model is read back through the
obligation's symbols (`Obligation.symbols`) into the same `smt.Answer` Z3
gives. The property's own decoding then builds the witness from that model,
and `result.run_engines` replays it on the concrete layout like Z3's and requires
the three verdicts to agree (a disagreement is an `InternalError`, exit 3).

Every property with a Z3 engine therefore rebuilds its witness from
Bitwuzla's model (injective, injective_up_to_broadcast, surjective,
invertible, equivalent, conversion and its sub-claims, fits, aligned_access,
bank_conflict_free in both models, padded or not); there is no property
where Bitwuzla contributes its verdict only.

Without Bitwuzla installed, asking for ``engine="all"`` is a `CheckerError`
(bad input, exit 2) that says how to install it, in one line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from . import smt
from .errors import CheckerError, InternalError

SOLVER = "bitwuzla"
INSTALL = "pip install bitwuzla"


def available() -> bool:
    """True when the second solver can be imported."""
    try:
        import bitwuzla  # noqa: F401  # lazy: optional second solver, probed only when asked
    except ImportError:
        return False
    return True


def require() -> None:
    """Raise the one-line `CheckerError` of a missing second solver."""
    if not available():
        raise CheckerError(f"--engine all needs the second SMT solver ({SOLVER}), which is not installed: "
                           f"{INSTALL}", field="engine")


def version() -> str:
    import bitwuzla  # lazy: optional second solver, only for --engine all
    return bitwuzla.version()


def _run(text: str, timeout_ms: int | None):
    """Parse SMT-LIB2 text into a fresh Bitwuzla instance and check it: (parser, bitwuzla, result)."""
    import bitwuzla as bz  # lazy: optional second solver, only for --engine all
    tm = bz.TermManager()
    opts = bz.Options()
    opts.set(bz.Option.PRODUCE_MODELS, True)
    if timeout_ms is not None:
        opts.set(bz.Option.TIME_LIMIT_PER, max(1, int(timeout_ms)))
    parser = bz.Parser(tm, opts)
    try:
        parser.parse(text, True, False)   # parse only: assert, do not run (check-sat) here
    except bz.BitwuzlaException as e:
        raise InternalError(f"{SOLVER} cannot read the obligation's SMT-LIB2 text: {e}") from None
    solver = parser.bitwuzla()
    return parser, solver, solver.check_sat()


def solve_smtlib(text: str, symbols: Mapping[str, str], timeout_ms: int | None = None):
    """Decide SMT-LIB2 text; a model is read back as {name: value} for the given {name: symbol}
    (a variable the script does not declare is unconstrained and reads as 0, as Z3's model
    completion gives it)."""
    import bitwuzla as bz  # lazy: optional second solver, only for --engine all
    parser, solver, r = _run(text, timeout_ms)
    if r == bz.Result.UNSAT:
        return smt.Answer("unsat")
    if r != bz.Result.SAT:
        return smt.Answer("unknown", reason="timeout" if timeout_ms is not None else f"{SOLVER}: unknown")
    by_symbol = {smt.unquote(f.symbol()): f for f in parser.get_declared_funs()}
    values = {}
    for name, sym in symbols.items():
        f = by_symbol.get(smt.unquote(sym))
        values[name] = 0 if f is None else int(solver.get_value(f).value(10))
    return smt.Answer("sat", values)


def check_smtlib(text: str, timeout_ms: int | None = None) -> str:
    """Re-check SMT-LIB2 text from scratch with the second solver: "sat", "unsat" or "unknown"."""
    import bitwuzla as bz  # lazy: optional second solver, only for --engine all
    _, _, r = _run(text, timeout_ms)
    return {bz.Result.SAT: "sat", bz.Result.UNSAT: "unsat"}.get(r, "unknown")


def solve(obligation, timeout_ms: int | None):
    """`smt.Obligation.solve` through the second solver: its SMT-LIB2 text, decided by Bitwuzla."""
    return solve_smtlib(smt.to_smtlib(obligation), obligation.symbols, timeout_ms)


def engine(z3_engine: Callable[[], object]) -> Callable[[], object]:
    """The second solver's engine for a property: its Z3 engine with every obligation solved by
    Bitwuzla (`solve`), the witness decoded and explained by the property's own code."""
    def run():
        with smt.solved_by(solve, SOLVER):          # the explanations name it (`smt.solver_name`)
            v = z3_engine()
        v.engine = SOLVER
        return v
    return run
