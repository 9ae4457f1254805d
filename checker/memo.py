"""Work shared within one run: what reading a kernel and proving its checks both compute (a reduction's rounds
through shared memory and their scratch: the kernel's shared-memory budget needs them, and so does the
reduction's own check), computed once while the run's memo is open, and afresh outside any.

    memo = Memo()
    with memo:                                   # `checker.run.verification`: load_inputs, then verify_inputs
        shared("reduction.rounds", (L, axis), lambda: rounds_of(L, axis))     # computed
    with memo:
        shared("reduction.rounds", (L, axis), lambda: rounds_of(L, axis))     # the value above

A memo lives as long as its run's inputs (`checker.run.verification.Inputs.memo`) and no longer: a new run (a
new kernel, an edited one) computes everything once, so no value outlives the inputs it was computed for, and
a benchmark's cold run still does all of the work. A value is keyed by its kind, its key and the Triton
version in force (`checker.versions.active`), so it must be a function of those alone; it is shared between its
readers, who never change it (give tuples, not lists). A worker forked for the run (``--jobs``,
`checker.run.forked`) starts with a copy of the memo as it was, and adds to its own copy; Ray's workers open
none, and there every `shared` computes."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from .versions import active

_T = TypeVar("_T")

_OPEN: contextvars.ContextVar[dict[tuple[Any, ...], Any] | None] = contextvars.ContextVar("memo", default=None)
LIMIT = 4096        # values kept per memo (a corpus run's worth of distinct reductions); full: it starts over


class Memo:
    """The values of one run, in force inside ``with memo:`` (re-entrant; the innermost memo opened answers)."""

    __slots__ = ("values", "_tokens")

    def __init__(self) -> None:
        self.values: dict[tuple[Any, ...], Any] = {}
        self._tokens: list[contextvars.Token[dict[tuple[Any, ...], Any] | None]] = []

    def __enter__(self) -> Memo:
        self._tokens.append(_OPEN.set(self.values))
        return self

    def __exit__(self, *exc: object) -> None:
        _OPEN.reset(self._tokens.pop())


def shared(kind: str, key: Hashable, compute: Callable[[], _T]) -> _T:
    """compute(), once per (kind, key, Triton version in force) while a memo is open; outside one, every time."""
    values = _OPEN.get()
    if values is None:
        return compute()
    full_key = (kind, key, active())
    if full_key in values:
        value: _T = values[full_key]
        return value
    if len(values) >= LIMIT:
        values.clear()
    value = values[full_key] = compute()
    return value
