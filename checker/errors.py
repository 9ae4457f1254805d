"""One exception family for everything layoutcheck reports to a user.

Every user-facing error carries where it came from (file, line, field) and the
rule that was broken, and renders as a single line:

    encodings/ampere.yaml:12: field 'threads_per_warp': every entry must be a power of two, got [6, 4]

The CLI turns any `CheckerError` into that line and exit code 2; nothing else
is allowed to escape as a traceback.
"""

from __future__ import annotations


class CheckerError(Exception):
    """A problem with the user's input or request (exit code 2)."""

    def __init__(self, message: str, *, file: str | None = None,
                 line: int | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field

    def located(self, *, file: str | None = None, line: int | None = None,
                field: str | None = None) -> "CheckerError":
        """Fill in location details that are not known yet (innermost wins)."""
        if self.file is None:
            self.file = file
        if self.line is None:
            self.line = line
        if self.field is None:
            self.field = field
        return self

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        field = f"field '{self.field}': " if self.field else ""
        return f"{where}{field}{self.message}"


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
