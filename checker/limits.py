"""Explicit limits on what layoutcheck reads, enumerates and prints (docs/robustness.md).

Bad input must be refused with one line naming the limit and the field, before it reaches a reader's
recursion, an enumeration or an engine. Every limit is a number here, with its reason:

| limit | value | why |
| --- | --- | --- |
| `MAX_ELEMENTS` | 2^31 | elements of a shape (and each dimension): Triton's `LinearLayout` keeps in/out dimension sizes as `int32_t`; Triton's verifier refuses a *tensor* over 2^20 elements (`maxTensorNumElements`, Traits.h), layoutcheck allows up to 2^31 so large tiles can still be studied |
| `MAX_RANK` | 16 | dimensions of a shape (Triton's layouts use at most 5) |
| `INT_MIN, INT_MAX` | -2^31, 2^31 - 1 | every integer of attribute text and Gluon parameters: Triton stores them as `unsigned` / `int32_t` |
| `MAX_SHOW_ELEMENTS` | 2^20 | cells `layoutcheck show` prints (tensor elements, or hardware indices with `--hw`): Triton's own maxTensorNumElements |
| `MAX_SWEEP_POINTS` | 10,000 | checks one spec check expands to through its `sweep` |
| `MAX_NESTING` | 64 | nesting of attribute text (`<`, `{`, `[`), YAML collections, API mappings and lists, named encodings referring to each other; Triton's layouts nest at most 4 deep |
| `MAX_INCLUDE_DEPTH` | 32 | a chain of files including each other |
| `MAX_YAML_NODES` | 200,000 | YAML nodes of a file once its aliases are expanded (a billion-laughs file is refused without being expanded) |
| `MAX_BYTES` | 2^32 | byte quantities (capacity, alignment, base address): shared memory is addressed with 32 bits |
| `MAX_DTYPE_BITS` | 1024 | an element type given as a number of bits (Triton's widest scalar is 64 bits) |
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .errors import CheckerError, ParseError

MAX_ELEMENTS = 1 << 31
MAX_RANK = 16
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
MAX_SHOW_ELEMENTS = 1 << 20
MAX_SWEEP_POINTS = 10_000
MAX_NESTING = 64
MAX_INCLUDE_DEPTH = 32
MAX_YAML_NODES = 200_000
MAX_BYTES = 1 << 32
MAX_DTYPE_BITS = 1024

# Characters no input file may hold: C0 controls other than tab, line feed and carriage return, DEL,
# C1 controls, surrogates, the noncharacters U+FFFE / U+FFFF (outside YAML's printable set), and the
# line breaks other than '\n' that some readers count and others do not (NEL, U+2028, U+2029).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")
_DECIMAL = re.compile(r"[0-9]+")


def printable(ch: str) -> str:
    """A character as a message shows it: quoted when printable ('x', '²' (U+00B2)), else its code point;
    a non-ASCII digit says that only ASCII digits are numbers here."""
    if " " <= ch <= "~":
        return repr(ch)
    code = f"U+{ord(ch):04X}"
    shown = f"{ch!r} ({code})" if ch.isprintable() else code
    return shown + (": numbers are written in ASCII digits 0-9" if ch.isdigit() or ch.isnumeric() else "")


def decode(data: bytes, file: str | None, *, field: str | None = None) -> str:
    """The text of a file's bytes: UTF-8 (a leading BOM is dropped), with no control character.
    Anything else (Latin-1, UTF-16, binary) is a ParseError naming the file and the line."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ParseError("the file is UTF-16 (it starts with a byte-order mark); save it as UTF-8",
                         file=file, line=1, field=field)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ParseError(f"the file is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
                         f"save it as UTF-8", file=file, line=line, field=field) from None
    check_characters(text, file, field=field)
    return text


def check_characters(text: str, file: str | None = None, *, field: str | None = None) -> None:
    """Refuse text holding a NUL or another control character (binary data, UTF-16 read as bytes)."""
    if not isinstance(text, str):
        raise ParseError(f"expected text, got {type(text).__name__}", file=file,
                         field=field or (None if file else "text"))
    m = _CONTROL.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        what = "a NUL byte" if m.group() == "\x00" else f"the control character {printable(m.group())}"
        raise ParseError(f"{what} is not allowed in text input (is this a binary or UTF-16 file?)",
                         file=file, line=line if file else None, field=field if file or field else "text")


def read_text(path: str, *, field: str | None = None) -> str:
    """A text file's contents (`decode`); an unreadable file is a ParseError naming it."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ParseError(f"cannot read the file: {e.strerror}", file=path, field=field) from None
    return decode(data, path, field=field)


def read_stdin(field: str) -> str:
    """Standard input's text (`decode`), named '<stdin>' in messages."""
    import sys
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:                  # replaced by a text stream (tests)
        text = sys.stdin.read()
        check_characters(text, "<stdin>", field=field)
        return text
    return decode(stream.read(), "<stdin>", field=field)


def integer(value: Any, field: str, *, what: str = "an integer", low: int | None = None,
            high: int | None = None, error: type[CheckerError] = CheckerError) -> int:
    """`value` as an int: a bool, float (NaN, inf, 64.0), str, bytes, None or container is refused, as is
    a value outside [low, high]."""
    if isinstance(value, bool) or not _is_intlike(value):
        raise error(f"must be {what}, got {describe(value)}", field=field)
    n = operator.index(value)
    if low is not None and n < low:
        raise error(f"must be {what} >= {low}, got {clip(n)}", field=field)
    if high is not None and n > high:
        raise error(f"must be {what} <= {high} (the limit), got {clip(n)}", field=field)
    return n


def _is_intlike(value: Any) -> bool:
    if isinstance(value, int):
        return True
    if isinstance(value, (float, complex, str, bytes, bytearray)) or value is None:
        return False
    try:
        operator.index(value)           # numpy integers
    except TypeError:
        return False
    return True


def shape(value: Any, field: str = "shape", *, error: type[CheckerError] = CheckerError) -> tuple[int, ...]:
    """A tensor shape: a list or tuple of 1 to MAX_RANK positive integers whose product is at most
    MAX_ELEMENTS. Strings, bytes, mappings, booleans and floats are refused."""
    if type(value) in (tuple, list) and 1 <= len(value) <= MAX_RANK \
            and all(type(d) is int and d > 0 for d in value) and math.prod(value) <= MAX_ELEMENTS:
        return tuple(value)             # the common case: positive plain ints, within the limits
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, (list, tuple)):
        if not isinstance(value, (str, bytes, bytearray, Mapping)) and hasattr(value, "__iter__") \
                and not hasattr(value, "keys"):
            value = list(value)         # a numpy array, a generator
        else:
            raise error(f"a shape is a list of positive integers such as [64, 64], got {describe(value)}",
                        field=field)
    if not 1 <= len(value) <= MAX_RANK:
        raise error(f"a shape has 1 to {MAX_RANK} dimensions, got {len(value)}", field=field)
    out = []
    for d in value:
        if isinstance(d, bool) or not _is_intlike(d):
            raise error(f"a shape lists positive integers, got {describe(d)} in {clip(list(value))}", field=field)
        d = operator.index(d)
        if d <= 0:
            raise error(f"a shape lists positive integers, got {clip(list(value))}", field=field)
        out.append(d)
    check_elements(out, field, error=error)
    return tuple(out)


def check_elements(dims: Sequence[int], field: str = "shape", *, error: type[CheckerError] = CheckerError) -> None:
    """Refuse a shape of more than MAX_ELEMENTS elements (each dimension included)."""
    total = math.prod(dims)
    if total > MAX_ELEMENTS:
        raise error(f"shape {clip('x'.join(map(str, dims)))} has {clip(total)} elements; the limit is "
                    f"2^31 = {MAX_ELEMENTS} (Triton's LinearLayout sizes are 32-bit)", field=field)


def parse_shape_text(text: str, field: str, *, error: type[CheckerError] = CheckerError) -> tuple[int, ...]:
    """'128x64' -> (128, 64): ASCII decimal digits only (no '１６', '1_6', '+16', spaces)."""
    parts = text.lower().split("x")
    if not all(_DECIMAL.fullmatch(p) for p in parts):
        raise error(f"shape {clip(text)!r} is not of the form 16x16 (ASCII digits 0-9 and 'x')", field=field)
    return shape([int(p) for p in parts], field, error=error)


def byte_count(value: Any, field: str, *, low: int = 0, error: type[CheckerError] = CheckerError) -> int:
    """A number of bytes (capacity, alignment, base address): an integer in [low, MAX_BYTES]."""
    return integer(value, field, what="a number of bytes", low=low, high=MAX_BYTES, error=error)


def depth(value: Any, limit: int = MAX_NESTING) -> int:
    """How deeply `value` nests mappings, lists and tuples (iteratively; stops once past `limit`)."""
    deepest = 0
    stack = [(value, 1)]
    seen = set()
    while stack:
        node, d = stack.pop()
        children: Sequence[Any]
        if isinstance(node, Mapping):
            children = list(node.values())
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if d > deepest:
            deepest = d
            if deepest > limit:
                return deepest
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend((c, d + 1) for c in children)
    return deepest


def check_depth(value: Any, field: str, *, what: str = "the value",
                error: type[CheckerError] = CheckerError) -> None:
    """Refuse a structure nested more than MAX_NESTING deep."""
    if depth(value) > MAX_NESTING:
        raise error(f"{what} nests more than {MAX_NESTING} levels deep (the limit)", field=field)


def describe(value: Any) -> str:
    """A value as a message shows it: its type, and a short text of it."""
    kind = type(value).__name__
    if value is None:
        return "None"
    if isinstance(value, bool):
        return f"the boolean {value}"
    if isinstance(value, float):
        return f"the float {value!r}"
    return f"{kind} {clip(value)}"


def clip(value: Any, limit: int = 60) -> str:
    """repr-like text of `value`, cut to `limit` characters with '...'."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1 << 64:
        return f"2^{value.bit_length() - 1}" if value > 0 and value & (value - 1) == 0 else \
            f"an integer of {value.bit_length()} bits"
    try:
        text = value if isinstance(value, str) else repr(value)
    except (ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


__all__ = ["MAX_ELEMENTS", "MAX_RANK", "INT_MIN", "INT_MAX", "MAX_SHOW_ELEMENTS", "MAX_SWEEP_POINTS",
           "MAX_NESTING", "MAX_INCLUDE_DEPTH", "MAX_YAML_NODES", "MAX_BYTES", "MAX_DTYPE_BITS", "decode", "read_text",
           "did_you_mean",
           "read_stdin", "check_characters", "integer", "shape", "parse_shape_text", "byte_count", "depth",
           "check_depth", "describe", "clip", "check_elements", "printable"]


def did_you_mean(word: str, choices: Iterable[object]) -> str:
    """`` (did you mean 'x'?)`` for the choice closest to a misspelt `word` (case, ``_`` and ``-`` aside, or
    difflib's ratio of at least 0.8), else ``""``."""
    import difflib
    if not isinstance(word, str):
        return ""
    names = [c for c in choices if isinstance(c, str)]

    def plain(s: str) -> str:
        return s.lower().replace("_", "").replace("-", "")
    by_plain = {plain(c): c for c in names}
    close = difflib.get_close_matches(plain(word), list(by_plain), n=1, cutoff=0.8)
    return f" (did you mean '{by_plain[close[0]]}'?)" if close and by_plain[close[0]] != word else ""
