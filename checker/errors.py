"""One exception family for everything layoutcheck reports to a user.

Every user-facing error carries where it came from (file, line, field) and the
rule that was broken, and renders as a single line:

    encodings/ampere.yaml:12: field 'threads_per_warp': every entry must be a power of two, got [6, 4]

The CLI turns any `CheckerError` into that line and exit code 2; nothing else
is allowed to escape as a traceback. The line is enforced here: `str()` folds
line breaks and control characters into spaces and cuts the text at
`MAX_MESSAGE` characters with '...' (the location comes first, so it survives).
Input that is not a file is located by its argument: `argument` names a
command-line argument (``encoding``, ``--shape``) and renders as
``argument encoding: ...``; API input names its parameter in `field`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")

MAX_MESSAGE = 300           # characters of one rendered error, location included
_FOLD = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


class CheckerError(Exception):
    """A problem with the user's input or request (exit code 2)."""

    def __init__(self, message: str, *, file: str | None = None,
                 line: int | None = None, field: str | None = None, argument: str | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        self.argument = argument

    def located(self, *, file: str | None = None, line: int | None = None,
                field: str | None = None, argument: str | None = None) -> CheckerError:
        """Fill in location details that are not known yet (innermost wins)."""
        if self.file is None:
            self.file = file
        if self.line is None:
            self.line = line
        if self.field is None:
            self.field = field
        if getattr(self, "argument", None) is None:
            self.argument = argument
        return self

    @property
    def has_location(self) -> bool:
        """Whether the error says where: a file, a command-line argument or a field (an API parameter)."""
        return bool(self.file or getattr(self, "argument", None) or self.field)

    def __str__(self) -> str:
        where = ""
        argument = getattr(self, "argument", None)
        if self.file is not None:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        elif argument:
            where = f"argument {argument}: "
        field = f"field '{self.field}': " if self.field and self.field != argument else ""
        return one_line(f"{where}{field}{self.message}")


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` on one line (line breaks and control characters folded into one space), at most `limit`
    characters: a longer text keeps its start (the location) and its end (what was got), the middle is
    cut with '...'."""
    text = _FOLD.sub(" ", str(text)).strip()
    if len(text) <= limit:
        return text
    tail = limit // 4
    return text[:limit - tail - 5].rstrip() + " ... " + text[-tail:].lstrip()


class EncodingError(CheckerError):
    """An encoding violates one of Triton's verifier rules."""


class NotModelled(EncodingError):
    """A valid encoding that layoutcheck's models do not cover (e.g. one Triton itself builds no
    LinearLayout for): a TTGIR check of it is skipped with this reason, never failed."""


class ParseError(CheckerError):
    """Attribute text, YAML or TTGIR that cannot be read."""


class LayoutError(CheckerError):
    """A LinearLayout operation applied outside its preconditions."""


class InternalError(Exception):
    """A bug in layoutcheck itself (engine disagreement, witness that does not replay)."""


def bug_message(error: BaseException) -> str:
    """One line for an exception that is a bug in layoutcheck: its type and message, and the line of
    layoutcheck's code that raised it (``checker/ttgir/allocation.py:777``), for the report of the bug."""
    import os
    import traceback
    here = os.path.dirname(os.path.abspath(__file__))
    frames = [f for f in traceback.extract_tb(error.__traceback__) if os.path.abspath(f.filename).startswith(here)]
    where = ""
    if frames:
        f = frames[-1]
        where = f" (at checker/{os.path.relpath(f.filename, here)}:{f.lineno})"
    return f"{type(error).__name__}: {error}{where}"


def names_argument(argument: str, params: tuple[str, ...] = (),
                   replaces: tuple[str, ...] = ()) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorate a public function so that the `CheckerError`s it raises name the parameter their input
    came from when they name no file: `argument`, or the parameter among `params` the error's field
    names (``shape``); an argument in `replaces` (named by a function it calls) becomes `argument`."""
    import functools

    def deco(fn: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(fn)
        def named(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return fn(*args, **kwargs)
            except CheckerError as e:
                if e.file is None:
                    given = getattr(e, "argument", None)
                    if given is None or given in replaces:
                        e.argument = e.field if e.field in params else argument
                raise
        return named
    return deco
