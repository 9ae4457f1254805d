"""Triton's layout attribute text, read and written exactly as Triton 3.9 prints it.

    parse_attribute("#ttg.slice<{dim = 0, parent = #blocked}>", aliases)  -> SliceEncoding
    print_attribute(encoding)                                          -> "#ttg.slice<{dim = 0, parent = ...}>"
    parse_alias_definitions("#blocked = #ttg.blocked<{...}>\\n...")      -> {"blocked": BlockedEncoding}

The grammar is the part of MLIR's attribute syntax that layouts use:

    attribute := '#' DIALECT '.' NAME '<' body '>'  |  '#' ALIAS
    value     := INT | 'true' | 'false' | '[' values ']' | '{' entries '}' | attribute
    entries   := [KEY '=' value (',' KEY '=' value)*]

Most bodies are ``{entries}``, read and printed field by field from the
encoding's own field metadata (`checker.encodings.base.param`: Triton's key,
its default, whether the printer leaves it out). Triton's syntax is bespoke,
and so is the code here, for ``padded_shared`` (``[I:+P, ...] {entries}``),
``shared_linear`` (``{entries}, alignment = N``) and ``amd_wmma`` (a nested
``ctaLayout = {register, warp}``); the ``ttng`` tensor memory encodings are
bare ``entries``. ``#triton_gpu.`` is accepted for ``#ttg.`` (and
``#triton_nvidia_gpu.`` for ``#ttng.``). Optional fields take Triton's
defaults; a CGA layout is read from ``CGALayout = [[...]]`` or from the legacy
``CTAsPerCGA, CTASplitNum, CTAOrder`` triple (converted as Triton converts
it). Parsing checks syntax and value types only: Triton's verifier rules are
``encoding.validate()``.

By default every key must be known and every required key given. With
``lenient=True`` (what the TTGIR reader uses) the text is read as Triton's own
parsers read it: the families whose parser looks keys up in the dictionary
(``nvidia_mma``, ``amd_mfma``, ``amd_wmma``, ``slice``, ``linear``) ignore keys
they do not know, and ``amd_mfma`` takes ``version = 0`` and
``isTransposed = false`` when they are absent.

Printing follows Triton's printers: optional fields appear only when they
differ from the default, aliases are expanded inline, and a linear layout
that is not a permutation matrix once its zero bases are removed prints as
``generic_linear``.

The text is cut into tokens by one regular expression (`_TOKEN`), as plain
strings (a list of integers, or of lists of integers, is one token); the
parser walks that list by index, and turns an index into a line and column
only for an error. A word that is no token ends the list; it is reported
when the parser reaches it, so errors come in reading order. Parses are
interned by text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from ..encodings import ENCODING_CLASSES
from ..encodings.amd_wmma import AmdWmmaEncoding, cta_bases_of_warps
from ..encodings.base import (
    BASES,
    BOOL,
    CGA,
    ENCODING,
    INT,
    INTS,
    RANK,
    REQUIRED,
    Bases,
    Encoding,
    bases_rank,
    implied_rank,
    is_permutation_matrix,
    params_of,
)
from ..encodings.cga import cga_bases_from_split_params
from ..encodings.padded_shared import PaddedSharedOrderEncoding, identity_offsets, padded_shared
from ..encodings.shared_linear import SharedLinearEncoding
from ..errors import CheckerError, ParseError
from ..layout import is_power_of_two
from ..limits import INT_MAX, INT_MIN, MAX_NESTING, clip, did_you_mean, printable

_DIALECTS = {"ttg": "ttg", "triton_gpu": "ttg", "ttng": "ttng", "triton_nvidia_gpu": "ttng"}
_MEMORY_SPACES = {"ttg.shared_memory", "ttng.tensor_memory"}
_LEGACY_CGA = ("CTAsPerCGA", "CTASplitNum", "CTAOrder")
_IGNORES_UNKNOWN_KEYS = {"nvidia_mma", "amd_mfma", "amd_wmma", "slice", "linear", "generic_linear"}


# ---------------------------------------------------------------- tokens

# Group 1, a token: one punctuation character; a whole list of integers of at most 9 digits (always 32-bit),
# or a whole list of such lists (bases); '#name' or a name (MLIR's identifiers are ASCII: letters, digits,
# '_', '$', '.'); an integer of at most 9 digits. Group 2, a word to check (`_lex_error`): any other
# integer-like word, or any other character. Then the white space and // comments after it (one space, the
# usual case, first; a comment runs to the end of its line; white space is what str.isspace holds for in
# ASCII). Lexing starts after the leading white space (_SKIP_RE).
_SPACE = r"[ \t\n\r\f\v\x1c-\x1f]"
_SKIP = rf"(?:{_SPACE}+|//[^\n]*)*"
_SMALL_INT = rf"-?[0-9]{{1,9}}{_SPACE}*"
_INT_LIST = rf"\[{_SPACE}*(?:{_SMALL_INT}(?:,{_SPACE}*{_SMALL_INT})*)?\]"
_TOKEN = re.compile(rf"(?:([<>{{}}\]=,:+]|\[{_SPACE}*{_INT_LIST}{_SPACE}*(?:,{_SPACE}*{_INT_LIST}{_SPACE}*)*\]"
                    rf"|{_INT_LIST}|\[|#?[A-Za-z_][A-Za-z0-9_$.]*|-?[0-9]{{1,9}}(?![A-Za-z0-9_$.]))"
                    r"|(-?[0-9][A-Za-z0-9_$.]*|(?s:.)))"
                    rf"(?: (?![ \t\n\r\f\v\x1c-\x1f/])|{_SKIP})")
_SKIP_RE = re.compile(_SKIP)
_ELEMENT_TYPE = re.compile(r"[iu](?:1|8|16|32|64)|f(?:16|32|64)|bf16|tf32")
_LIST_ITEMS = re.compile(r"-?[0-9]+")
_INNER_LISTS = re.compile(r"\[([^\[\]]*)\]")
_END = " end"                       # the token after the last one (no token starts with a space)
_BAD = " bad"                       # stands for the first word that is no token, and ends the list
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_INT_START = frozenset("-0123456789")
_OPENERS = frozenset("<{[")
_CLOSERS = frozenset(">}]")

_LISTS: dict[str, tuple] = {}      # list token -> its integers, or its lists of integers (bounded)
_LISTS_LIMIT = 1 << 14


def _list_value(t: str) -> Any:
    """The value of a list token: '[1, 8]' -> (1, 8); '[[0, 1], [1, 0]]' -> [(0, 1), (1, 0)] (a list,
    as `sequence` gives for lists that are not all integers)."""
    got = _LISTS.get(t)
    bases = _is_bases(t)
    if got is None:
        if len(_LISTS) > _LISTS_LIMIT:
            _LISTS.clear()
        try:                                # the quick ways, which white space other than " \t\n\r" defeats
            got = tuple(map(tuple, json.loads(t))) if bases else tuple(map(int, t[1:-1].split(",")))
        except ValueError:
            got = tuple(tuple(map(int, _LIST_ITEMS.findall(inner))) for inner in _INNER_LISTS.findall(t)) if bases \
                else tuple(map(int, _LIST_ITEMS.findall(t)))
        _LISTS[t] = got
    return list(got) if bases else got


def _is_bases(t: str) -> bool:
    """Whether a list token is a list of lists."""
    return t.find("[", 1) > 0


def _word(m: re.Match) -> str:
    """The token or word a match of _TOKEN found."""
    return m.group(m.lastindex)


def _lex_error(word: str) -> str | None:
    """Why `word` (a match of _TOKEN) is no token, or None when it is one."""
    c = word[:1]
    if c == "#":
        return "'#' must be followed by an encoding or alias name" if len(word) == 1 else None
    if c in _NAME_START or c == "[" or (len(word) == 1 and c in "<>{}]=,:+"):
        return None
    if c in _INT_START and word != "-":
        digits = word[1:] if c == "-" else word
        if not digits.isdigit() or not digits.isascii():
            return f"'{clip(word, 40)}' is not an integer"
        if len(digits) > 10 or not INT_MIN <= int(word) <= INT_MAX:
            return (f"the integer {clip(word, 24)} is out of range: attribute integers are 32-bit "
                    f"(-2^31 to 2^31 - 1, the limit)")
        return None
    return f"unexpected character {printable(c)}"


def _tokens(text: str, start: int = 0, end: int | None = None) -> tuple[list[str], int, str | None]:
    """The tokens of text[start:end] then _END, as strings; where a word is no token, the list ends there
    with _BAD: (tokens, index of _BAD or -1, why that word is no token)."""
    end = len(text) if end is None else end
    found = _TOKEN.findall(text, _SKIP_RE.match(text, start, end).end(), end)
    if not found:
        return [_END], -1, None
    good, words = zip(*found)
    toks = list(good)
    toks.append(_END)
    if any(words):
        for k, word in enumerate(words):
            if word:
                why = _lex_error(word)
                if why:
                    del toks[k + 1:]
                    toks[k] = _BAD
                    return toks, k, why
                toks[k] = word              # an integer of 10 digits, within 32 bits
    return toks, -1, None


class _Parser:
    """Recursive descent over the token list of text[start:end] (by index)."""

    def __init__(self, text: str, aliases: Mapping[str, Encoding] | None, *, lenient: bool = False,
                 start: int = 0, end: int | None = None, multiline: bool | None = None):
        self.text = text
        self.aliases = aliases or {}
        self.lenient = lenient
        self.multiline = "\n" in text if multiline is None else multiline
        self.start, self.end = start, len(text) if end is None else end
        self.toks, self.bad, self.why = _tokens(text, start, end)
        self.i = 0
        self.depth = 0                      # attributes, lists and dictionaries open (at most MAX_NESTING)
        self.alias_refs: list[tuple[str, str, Encoding]] = []   # (name, key found, value) of every alias read
        self._starts: list[int] | None = None

    # -- positions and errors (token indices become text offsets only here)

    def pos(self, i: int) -> int:
        """The text offset of token i."""
        if self._starts is None:
            first = _SKIP_RE.match(self.text, self.start, self.end).end()
            self._starts = [m.start() for m in _TOKEN.finditer(self.text, first, self.end)]
        return self._starts[i] if i < len(self._starts) else self.end       # _END: after the trailing space

    def token_end(self, i: int) -> int:
        """The text offset just after token i."""
        m = _TOKEN.match(self.text, self.pos(i), self.end)
        return m.end(m.lastindex) if m else self.end

    def where(self, pos: int) -> str:
        line = self.text.count("\n", 0, pos) + 1
        col = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return f"line {line}, column {col}" if self.multiline else f"column {col}"

    def error(self, message: str, i: int, field: str | None = None, offset: int = 0) -> ParseError:
        """An error at token i (`offset` characters into it)."""
        return ParseError(f"{message} (at {self.where(self.pos(i) + offset)})", field=field)

    def unexpected(self, message: str, i: int, field: str | None = None) -> ParseError:
        """`message` about token i, or, when token i is no token, why not (what a reader meets first)."""
        if i == self.bad:
            return self.error(self.why, i)
        return self.error(message, i, field)

    def describe(self, i: int) -> str:
        t = self.toks[i]
        if t == _END:
            return "end of text"
        if t[0] == "[":                     # a list of integers is one token: its '[' is what a reader meets
            return "'['"
        return f"'#{clip(t[1:], 40)}'" if t[0] == "#" else f"'{clip(t, 40)}'"

    def expect(self, punct: str, opener: int | None = None) -> int:
        """Consume `punct` (closing the one at token index `opener`); its index."""
        i = self.i
        if self.toks[i] != punct:
            closing = f" to close '{self.toks[opener]}' opened at {self.where(self.pos(opener))}" \
                if opener is not None else ""
            raise self.unexpected(f"expected '{punct}'{closing}, got {self.describe(i)}", i)
        self.i = i + 1
        return i

    def enter(self, i: int) -> None:
        """One more attribute, list or dictionary open (opened at token i); refused past MAX_NESTING."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"the attribute nests more than {MAX_NESTING} levels deep (the limit)", i)

    def enter_list(self, i: int) -> None:
        """A list token at i opens one list, or two (a list of lists: the second at its first inner '[')."""
        self.enter(i)
        t = self.toks[i]
        inner = t.find("[", 1)
        if inner > 0 and self.depth + 1 > MAX_NESTING:
            raise self.error(f"the attribute nests more than {MAX_NESTING} levels deep (the limit)", i, offset=inner)
        self.depth -= 1

    def check_token(self, i: int) -> None:
        """Raise the lexing error of token i now, where the reader looks at it before anything else."""
        if i == self.bad:
            raise self.error(self.why, i)

    # -- values: int, bool, tuple (a list of integers, or []), list (any other list), _Fields, Encoding

    def value(self) -> Any:
        i = self.i
        t = self.toks[i]
        c = t[0]
        if c in _INT_START:
            self.i = i + 1
            return int(t)
        if c == "#":
            return self.attribute()
        if c == "[":
            if len(t) > 1:                  # a list of integers, or of lists of integers
                self.enter_list(i)
                self.i = i + 1
                return _list_value(t)
            return self.sequence()
        if c == "{":
            return self.dictionary()
        if t == "true" or t == "false":
            self.i = i + 1
            return t == "true"
        if _ELEMENT_TYPE.fullmatch(t):          # an MLIR element type (Triton 3.5's amd_mfma elementType = i32)
            self.i = i + 1
            return t
        raise self.unexpected(f"expected a value, got {self.describe(i)}", i)

    def sequence(self, item: Callable[[], Any] | None = None) -> Any:
        """``[values]`` (not all integers: those are one token) as a list, each read by `item`."""
        toks = self.toks
        opener = self.expect("[")
        self.enter(opener)
        i = opener + 1
        if toks[i] == "]":
            self.i = i + 1
            self.depth -= 1
            return ()
        item = item or self.value
        out = []
        while True:
            out.append(item())
            t = toks[self.i]
            if t == ",":
                self.i += 1
                continue
            if t == "]":
                self.i += 1
                self.depth -= 1
                return tuple(out) if all(type(v) is int for v in out) else out
            raise self.unexpected(f"expected ',' or ']' to close '[' opened at {self.where(self.pos(opener))}, "
                                  f"got {self.describe(self.i)}", self.i)

    def dictionary(self) -> _Fields:
        """``{entries}``."""
        return self.entries(self.expect("{"), "}")

    def entries(self, opener: int, close: str) -> _Fields:
        """``key = value`` pairs separated by commas, then `close` (which closes the token at `opener`)."""
        toks = self.toks
        i = first = self.i
        self.check_token(first)
        self.enter(opener)
        fields = _Fields(self, first)
        entries, keys = fields.entries, fields.keys
        while True:
            key = toks[i]
            if key == close:
                break
            if key[0] not in _NAME_START:
                raise self.unexpected(f"expected a key or '{close}', got {self.describe(i)}", i)
            if toks[i + 1] != "=":
                raise self.unexpected(f"expected '=', got {self.describe(i + 1)}", i + 1)
            v = i + 2
            self.check_token(v)
            if key in entries:
                raise self.error(f"key '{key}' is given twice", i, key)
            t = toks[v]
            if t[0] == "[" and len(t) > 1 and self.depth + 1 < MAX_NESTING:   # value() of a list token
                value = _list_value(t)
                i = v + 1
            else:
                self.i = v
                value = self.value()
                i = self.i
            entries[key] = (value, v)
            keys[key] = v - 2
            t = toks[i]
            if t == close:
                break
            if t != ",":
                raise self.unexpected(f"expected ',' or '{close}' to close '{toks[opener]}' opened at "
                                      f"{self.where(self.pos(opener))}, got {self.describe(i)}", i)
            i += 1
            if toks[i] == close:
                raise self.unexpected(f"expected a key after ',', got {self.describe(i)}", i)
        self.i = i + 1
        self.depth -= 1
        return fields

    # -- attributes

    def attribute(self) -> Encoding:
        head = self.i
        name = self.toks[head]
        if name[0] != "#":
            raise self.unexpected(f"expected an attribute starting with '#', got {self.describe(head)}", head)
        self.i = head + 1
        name = name[1:]
        dialect, dot, mnemonic = name.partition(".")
        if dot and dialect in _DIALECTS:
            read = _READERS.get(f"{_DIALECTS[dialect]}.{mnemonic}")
            if read is None:
                known = ", ".join(sorted(f"#{n}" for n in _READERS))
                hint = did_you_mean(f"#{_DIALECTS[dialect]}.{mnemonic}", [f"#{n}" for n in _READERS])
                raise self.error(f"unknown encoding '#{clip(name, 40)}'{hint} (known: {clip(known, 120)})", head)
            if self.toks[self.i] != "<":
                raise self.unexpected(f"expected '<' after '#{name}', got {self.describe(self.i)}", self.i)
            self.enter(head)
            try:
                enc = read(self, mnemonic)
            except ParseError:
                raise
            except CheckerError as e:  # a legacy field that cannot be converted
                raise self.error(e.message, head, e.field) from None
            self.depth -= 1
            return enc
        for key in (name, "#" + name):
            if key in self.aliases:
                value = self.aliases[key]
                self.alias_refs.append((name, key, value))
                return value
        raise self.error(f"unknown alias '#{clip(name, 40)}'", head)


class _Fields:
    """The entries of one dictionary, each read once with a type check; leftovers are unknown keys."""

    __slots__ = ("parser", "first", "kind", "entries", "keys", "used")

    def __init__(self, parser: _Parser, first: int):
        self.parser = parser
        self.first = first                                  # its first token (where a missing key is reported)
        self.kind = ""
        self.entries: dict[str, tuple[Any, int]] = {}       # key -> (value, its first token)
        self.keys: dict[str, int] = {}                      # key -> its token
        self.used: set[str] = set()

    def has(self, key: str) -> bool:
        return key in self.entries

    def raw(self, key: str) -> Any:
        """The value as written (None when absent), not marked as read."""
        return self.entries.get(key, (None,))[0]

    def read(self, key: str, form: str, default: Any = REQUIRED) -> Any:
        """The value of `key` in `form` (INT, BOOL, INTS, BASES, ENCODING, or a dictionary for "dict"); `default`
        when it is absent (REQUIRED: a missing key)."""
        got = self.entries.get(key)
        if got is None:
            if default is REQUIRED:
                spelt = [k for k in self.entries if k not in self.used and did_you_mean(k, [key])]
                hint = f" (is '{spelt[0]}' a misspelling of it?)" if spelt else ""
                raise self.parser.error(f"{self.kind}: missing key '{key}'{hint}", self.first, key)
            return default
        self.used.add(key)
        v = got[0]
        if form in (INT, RANK):
            if type(v) is int:
                return v
            want = "an integer"
        elif form == INTS:
            if type(v) is tuple:
                return v
            want = "a list of integers, e.g. [1, 2]"
        elif form in (BASES, CGA):
            if v == () or type(v) is list and all(type(b) is tuple for b in v):
                return tuple(v)
            want = "a list of lists of integers, e.g. [[0, 1], [1, 0]]"
        elif form == BOOL:
            if type(v) is bool:
                return v
            want = "true or false"
        elif form == ENCODING:
            if isinstance(v, Encoding):
                return v
            want = "an encoding attribute"
        else:
            if isinstance(v, _Fields):
                return v
            want = "a dictionary {...}"
        raise self.parser.error(f"{self.kind}: '{key}' must be {want}", got[1], key)

    def cga(self, rank: int) -> Bases:
        """``CGALayout = [[...]]`` or the legacy CTAsPerCGA/CTASplitNum/CTAOrder; () when absent."""
        legacy = [k for k in _LEGACY_CGA if k in self.entries]
        if "CGALayout" in self.entries:
            if legacy:
                raise self.parser.error(f"{self.kind}: give either CGALayout or {legacy[0]}, not both",
                                        self.entries[legacy[0]][1], legacy[0])
            bases = self.read("CGALayout", BASES)
            for b in bases:
                if len(b) != rank:
                    raise self.parser.error(f"{self.kind}: CGALayout entry {list(b)} does not have the rank {rank}",
                                            self.entries["CGALayout"][1], "CGALayout")
            return bases
        if not legacy:
            return ()
        if len(legacy) != 3:
            missing = next(k for k in _LEGACY_CGA if k not in legacy)
            raise self.parser.error(f"{self.kind}: CTAsPerCGA, CTASplitNum and CTAOrder must be given together "
                                    f"(missing '{missing}')", self.first, missing)
        return cga_bases_from_split_params(self.read("CTAsPerCGA", INTS), self.read("CTASplitNum", INTS),
                                           self.read("CTAOrder", INTS), self.kind)

    def finish(self) -> None:
        if self.parser.lenient and self.kind in _IGNORES_UNKNOWN_KEYS:
            return
        for key in self.entries:
            if key not in self.used:
                raise self.parser.error(f"{self.kind}: unknown key '{key}'", self.keys[key], key)


# ---------------------------------------------------------------- field-driven families

_READERS: dict[str, Callable[[_Parser, str], Encoding]] = {}    # "ttg.blocked" -> reader
_PRINTERS: dict[str, Callable[[Encoding], str]] = {}           # kind -> printer


def _body(p: _Parser, kind: str, braces: bool = True) -> _Fields:
    """``<{entries}>``, or ``<entries>`` (MLIR's struct format without braces)."""
    opener = p.expect("<")
    if braces:
        fields = p.dictionary()
        p.expect(">", opener)
    else:
        fields = p.entries(opener, ">")
    fields.kind = kind
    return fields


@cache
def _reading_order(cls: type) -> tuple:
    """The fields as the reader takes them: the one the rank comes from first, then in field order."""
    return tuple(sorted(params_of(cls), key=lambda np: not (np[1].gives_rank or np[1].form == RANK)))


def _read_fields(p: _Parser, f: _Fields, cls: type) -> dict[str, Any]:
    """Every field of `cls` from the dictionary f, by its Param (the CGA at the rank read first)."""
    values: dict[str, Any] = {}
    rank = cls.rank if isinstance(getattr(cls, "rank", None), int) else None      # a rank of the family's own
    for name, prm in _reading_order(cls):
        if prm.form == CGA:
            values[name] = f.cga(rank)
            continue
        default = prm.lenient_default if p.lenient and prm.lenient_default is not REQUIRED else prm.text_default
        if prm.form == RANK and not f.has(prm.triton):
            default = implied_rank(cls, {n: f.raw(q.triton) for n, q in params_of(cls) if q.form in (BASES, CGA)},
                                   f.raw("CTAOrder"))
        values[name] = f.read(prm.triton, prm.form, default)
        if prm.gives_rank or prm.form == RANK:
            rank = values[name] if prm.form == RANK else len(values[name])
    return values


def _field_reader(cls: type) -> Callable[[_Parser, str], Encoding]:
    braces = getattr(cls, "attribute_braces", True)

    def read(p: _Parser, mnemonic: str) -> Encoding:
        f = _body(p, mnemonic, braces)
        older = _OLDER_SPELLINGS.get(cls.kind)
        if older is not None:
            older(p, f)
        values = _read_fields(p, f, cls)
        check = _CHECKS.get(cls.kind)
        if check is not None and not check[0](values):
            raise p.error(f"{f.kind}: {check[1]}", f.first)
        enc = cls(**values)
        f.finish()
        return enc
    return read


def _print_fields(e: Encoding, cls: type) -> str:
    """Triton's text of `e`: its fields in Triton's order, each left out where Triton's printer leaves it."""
    params = dict(params_of(cls))
    parts = []
    for name in getattr(cls, "attribute_order", None) or params:
        prm, v = params[name], getattr(e, name)
        if prm.form == RANK:        # written only when nothing else says it
            if v == prm.text_default or any(getattr(e, n) for n, q in params.items() if q.form in (BASES, CGA)):
                continue
        elif prm.elided and v == prm.text_default:
            continue
        parts.append(f"{prm.triton} = {_value_text(prm.form, v)}")
    body = ", ".join(parts)
    mnemonic = _MNEMONICS.get(cls.kind, lambda e: cls.kind)(e)
    dialect = getattr(cls, "attribute_dialect", "ttg")
    return f"#{dialect}.{mnemonic}<{{{body}}}>" if getattr(cls, "attribute_braces", True) \
        else f"#{dialect}.{mnemonic}<{body}>"


def _value_text(form: str, v: Any) -> str:
    if form in (INTS,):
        return _ints_text(v)
    if form in (BASES, CGA):
        return _bases_text(v)
    if form == BOOL:
        return _bool_text(v)
    if form == ENCODING:
        return print_attribute(v)
    return str(v)


def _ints_text(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _bases_text(bases) -> str:
    return "[" + ", ".join(_ints_text(b) for b in bases) + "]"


def _bool_text(v: bool) -> str:
    return "true" if v else "false"


# Where the field-driven families differ from the rule: checks after reading (a condition on the values
# read, and the error when it fails), and printed mnemonics.
_CHECKS: dict[str, tuple[Callable[[Mapping[str, Any]], Any], str]] = {
    "linear": (lambda values: bases_rank(*values.values()), "an empty layout (no bases) is not supported"),
}
_MNEMONICS: dict[str, Callable[[Encoding], str]] = {
    "linear": lambda e: "linear" if is_permutation_matrix(e.register, e.lane, e.warp, e.block) else "generic_linear",
}


def _older_tensor_memory(p: _Parser, f: _Fields) -> None:
    """Triton <= 3.7 spells a TMEM layout's CGA ``CTASplitM = a, CTASplitN = b`` (split along M, then N; a
    CGALayout from 3.8, PR #9557), and Triton <= 3.5 writes ``unpacked = true|false`` for ``colStride``
    (PR #8136): read as colStride 1 with `TensorMemoryEncoding.unpacked` kept, which fixes the column
    stride once the element type is known (`TensorMemoryEncoding.col_stride_for`)."""
    splits = [(k, i) for i, k in enumerate(("CTASplitM", "CTASplitN")) if k in f.entries]
    if splits:
        if "CGALayout" in f.entries:
            raise p.error(f"{f.kind}: give either CGALayout or {splits[0][0]}, not both", f.entries[splits[0][0]][1],
                          splits[0][0])
        bases = []
        for key, dim in splits:
            n = f.read(key, INT)
            if not is_power_of_two(n):
                raise p.error(f"{f.kind}: '{key}' must be a power of two, got {n}", f.entries[key][1], key)
            bases += [tuple(1 << k if d == dim else 0 for d in range(2)) for k in range(n.bit_length() - 1)]
        f.entries["CGALayout"] = (bases, f.entries[splits[0][0]][1])
    if "unpacked" in f.entries and "colStride" not in f.entries:
        f.entries["colStride"] = (1, f.entries["unpacked"][1])


def _older_amd_mfma(p: _Parser, f: _Fields) -> None:
    """Triton <= 3.5 writes an MFMA layout's accumulator type, ``elementType = f64`` (or ``i32``, ``f32``), where
    3.6 writes ``elementBitWidth = 64`` only for a 64-bit one (PR #8213; the layout is the same): read as 64 for
    f64, else the default 32."""
    if "elementType" in f.entries and "elementBitWidth" not in f.entries:
        value, at = f.entries.pop("elementType")
        if not isinstance(value, str):
            raise p.error(f"{f.kind}: 'elementType' must be an element type such as f32 or f64, got {value!r}", at,
                          "elementType")
        f.entries["elementBitWidth"] = (64 if value.endswith("64") else 32, at)
        f.keys["elementBitWidth"] = f.keys.pop("elementType", at)


_OLDER_SPELLINGS: dict[str, Callable[[_Parser, _Fields], None]] = {
    "tensor_memory_encoding": _older_tensor_memory, "tensor_memory_scales_encoding": _older_tensor_memory,
    "amd_mfma": _older_amd_mfma}


# ---------------------------------------------------------------- bespoke families

def _read_amd_wmma(p: _Parser, mnemonic: str) -> Encoding:
    """``ctaLayout = {register = ..., warp = ...}`` (either may be absent: no bases), or Triton 3.6's
    ``warpsPerCTA = [..]`` with an optional ``tilesPerWarp = [..]`` (all ones when absent), read as the
    ctaLayout PR #8946 converts them to (`cta_bases_of_warps`; 3.6's lowering of them: change
    ``wmma_lowered_from_cta_layout``).

    The rank is ``rank = N`` if given, else deduced (`implied_rank`: the length of the first basis of
    ctaLayout or CGALayout, else 2); with warpsPerCTA, its length. (Triton's own parser assumes 2 when
    ``rank`` is absent, so it rejects the rank-3 text its printer writes.)
    """
    f = _body(p, mnemonic)
    if f.has("warpsPerCTA") and not f.has("ctaLayout"):
        return _read_amd_wmma_warps(p, f, mnemonic)
    cta = f.read("ctaLayout", "dict")
    cta.kind = f"{mnemonic} ctaLayout"
    registers, warps = cta.read("register", BASES, ()), cta.read("warp", BASES, ())
    cta.finish()
    deduced = implied_rank(AmdWmmaEncoding, {"register_bases": registers, "warp_bases": warps,
                                             "cga_layout": f.raw("CGALayout")}, f.raw("CTAOrder"))
    rank = f.read("rank", RANK, deduced)
    for name, bs in (("register", registers), ("warp", warps)):
        if any(len(b) != rank for b in bs):
            raise p.error(f"{mnemonic}: ctaLayout '{name}' bases do not have the rank {rank}",
                          f.entries["ctaLayout"][1], "ctaLayout")
    return _wmma_of(f, registers, warps, rank)


def _read_amd_wmma_warps(p: _Parser, f: _Fields, mnemonic: str) -> Encoding:
    """Triton <= 3.6's ``warpsPerCTA`` / ``tilesPerWarp`` (rank: their length; sizes: powers of two, which
    Triton's lowering asserts)."""
    warps = f.read("warpsPerCTA", INTS)
    rank = len(warps)
    tiles = f.read("tilesPerWarp", INTS, (1,) * rank)
    if len(tiles) != rank:
        raise p.error(f"{mnemonic}: 'tilesPerWarp' {list(tiles)} must have one entry per dim of warpsPerCTA "
                      f"{list(warps)}", f.entries["tilesPerWarp"][1], "tilesPerWarp")
    for key, values in (("warpsPerCTA", warps), ("tilesPerWarp", tiles)):
        if not all(is_power_of_two(v) for v in values):
            raise p.error(f"{mnemonic}: every '{key}' entry must be a power of two, got {list(values)}",
                          f.entries[key][1], key)
    if f.has("rank") and f.read("rank", RANK) != rank:
        raise p.error(f"{mnemonic}: 'rank' {f.raw('rank')} is not the length of warpsPerCTA {list(warps)}",
                      f.entries["rank"][1], "rank")
    registers, warp_bases = cta_bases_of_warps(warps, tiles)
    return _wmma_of(f, registers, warp_bases, rank)


def _wmma_of(f: _Fields, registers, warps, rank: int) -> Encoding:
    """The amd_wmma of these ctaLayout bases, its other fields read from `f` (then finished)."""
    params = dict(params_of(AmdWmmaEncoding))
    enc = AmdWmmaEncoding(f.read("version", INT), f.read("isTranspose", BOOL, False), registers, warps,
                          instr_shape=f.read("instrShape", INTS, params["instr_shape"].text_default),
                          cga_layout=f.cga(rank), rank=rank)
    f.finish()
    return enc


def _print_amd_wmma(e) -> str:
    cta = ", ".join(f"{name} = {_bases_text(bs)}" for name, bs in (("register", e.register_bases),
                                                                    ("warp", e.warp_bases)) if bs)
    default = dict(params_of(type(e)))["instr_shape"].text_default
    instr = f", instrShape = {_ints_text(e.instr_shape)}" if tuple(e.instr_shape) != default else ""
    cga = f", CGALayout = {_bases_text(e.cga_layout)}" if e.cga_layout else ""
    return (f"#ttg.amd_wmma<{{version = {e.version}, isTranspose = {_bool_text(e.is_transposed)}, "
            f"ctaLayout = {{{cta}}}{cga}{instr}}}>")


def _padded_pair(p: _Parser) -> tuple[int, int]:
    i = p.i
    if p.toks[i][0] not in _INT_START:
        raise p.unexpected(f"padded_shared: expected an interval such as 32:+4, got {p.describe(i)}", i, "intervals")
    p.i = i + 1
    p.expect(":")
    p.expect("+")
    j = p.i
    if p.toks[j][0] not in _INT_START:
        raise p.unexpected(f"padded_shared: expected a padding after '+', got {p.describe(j)}", j, "paddings")
    p.i = j + 1
    return int(p.toks[i]), int(p.toks[j])


def _padded_pairs(p: _Parser) -> Any:
    """``[I:+P, ...]``; ``[]`` and ``[I, ...]`` are one token (a list of integers): none, or an error at the
    character after the first integer."""
    i = p.i
    t = p.toks[i]
    if t[0] != "[" or len(t) == 1:
        return p.sequence(lambda: _padded_pair(p))
    p.enter(i)
    k = re.match(r"\[\s*", t).end()
    if t[k] == "]":
        p.depth -= 1
        p.i = i + 1
        return ()
    if t[k] == "[":
        raise p.error("padded_shared: expected an interval such as 32:+4, got '['", i, "intervals", offset=k)
    k = re.compile(r"-?[0-9]+\s*").match(t, k).end()
    raise p.error(f"expected ':', got '{t[k]}'", i, offset=k)


def _read_padded_shared(p: _Parser, mnemonic: str) -> Encoding:
    """``<[I:+P, ...] {order = [...], shape = [...]}>`` (identity offsets) or ``{offset = ..., block = ...}``."""
    opener = p.expect("<")
    pairs = _padded_pairs(p)
    f = p.dictionary()
    p.expect(">", opener)
    f.kind = mnemonic
    if f.has("offset") or f.has("block"):
        offset, block = f.read("offset", BASES), f.read("block", BASES)
        if not bases_rank(offset, block):
            raise p.error(f"{mnemonic}: an empty layout (no bases) is not supported", f.first)
    elif f.has("order") and not f.has("shape"):        # Triton 3.5's form: identity offsets at each use's shape
        order = f.read("order", INTS)
        f.finish()
        return PaddedSharedOrderEncoding(tuple(i for i, _ in pairs), tuple(q for _, q in pairs), (), (), order)
    else:
        order, shape = f.read("order", INTS), f.read("shape", INTS)
        if len(order) != len(shape):
            raise p.error(f"{mnemonic}: 'order' and 'shape' have different ranks ({len(order)} and {len(shape)})",
                          f.entries["order"][1], "order")
        if sorted(order) != list(range(len(order))):
            raise p.error(f"{mnemonic}: 'order' must be a permutation of 0..{len(order) - 1}, got {list(order)}",
                          f.entries["order"][1], "order")
        if not all(is_power_of_two(s) for s in shape):
            raise p.error(f"{mnemonic}: every 'shape' entry must be a power of two, got {list(shape)}",
                          f.entries["shape"][1], "shape")
        offset, block = identity_offsets(shape, order), ()
    f.finish()      # a shape of ones has no bases: its rank is kept (padded_shared)
    return padded_shared([i for i, _ in pairs], [q for _, q in pairs], offset, block,
                         0 if f.has("offset") or f.has("block") else len(order))


def _print_padded_shared(e) -> str:
    pairs = ", ".join(f"{i}:+{q}" for i, q in zip(e.intervals, e.paddings))
    short = e.identity_order_shape()
    if isinstance(e, PaddedSharedOrderEncoding):
        body = f"order = {_ints_text(e.order)}"
    elif short is not None:
        body = f"order = {_ints_text(short[0])}, shape = {_ints_text(short[1])}"
    else:
        body = f"offset = {_bases_text(e.offset_bases)}, block = {_bases_text(e.block_bases)}"
    return f"#ttg.padded_shared<[{pairs}] {{{body}}}>"


def _read_shared_linear(p: _Parser, mnemonic: str) -> Encoding:
    """``<{offset = [...][, block = [...]]}, alignment = N>``."""
    opener = p.expect("<")
    f = p.dictionary()
    f.kind = mnemonic
    if f.has("alignment"):
        raise p.error(f"{mnemonic}: 'alignment' goes after the closing '}}', not inside the bases",
                      f.entries["alignment"][1], "alignment")
    offset = f.read("offset", BASES)
    block = f.read("block", BASES, ())
    if not bases_rank(offset, block):
        raise p.error(f"{mnemonic}: an empty layout (no bases) is not supported", f.first)
    f.finish()
    p.expect(",")
    i = p.i
    if p.toks[i] != "alignment":
        raise p.unexpected(f"expected 'alignment', got {p.describe(i)}", i)
    p.i = i + 1
    p.expect("=")
    i = p.i
    if p.toks[i][0] not in _INT_START:
        raise p.unexpected(f"{mnemonic}: 'alignment' must be an integer, got {p.describe(i)}", i, "alignment")
    p.i = i + 1
    p.expect(">", opener)
    return SharedLinearEncoding(offset, block, int(p.toks[i]))


def _print_shared_linear(e) -> str:
    block = f", block = {_bases_text(e.block_bases)}" if e.block_bases else ""
    return f"#ttg.shared_linear<{{offset = {_bases_text(e.offset_bases)}{block}}}, alignment = {e.alignment()}>"


_BESPOKE = {"amd_wmma": (_read_amd_wmma, _print_amd_wmma), "padded_shared": (_read_padded_shared, _print_padded_shared),
            "shared_linear": (_read_shared_linear, _print_shared_linear)}


def _register() -> None:
    for kind, cls in ENCODING_CLASSES.items():
        read, show = _BESPOKE.get(kind) or (_field_reader(cls), lambda e, cls=cls: _print_fields(e, cls))
        dialect = getattr(cls, "attribute_dialect", "ttg")
        _READERS[f"{dialect}.{kind}"] = read
        _PRINTERS[kind] = show
    _READERS["ttg.generic_linear"] = _READERS["ttg.linear"]


_register()


# ---------------------------------------------------------------- entry points

def parse_attribute(text: str, aliases: Mapping[str, Encoding] | None = None, *, lenient: bool = False) -> Encoding:
    """The encoding an attribute text describes; ``#name`` is looked up in `aliases` (keys with or without '#').

    lenient: accept what Triton's parsers accept (see the module docstring)."""
    if not isinstance(text, str):
        raise ParseError(f"expected attribute text, got {type(text).__name__}")
    key = (text, lenient)
    hit = _INTERNED.get(key)
    if hit is not None and _same_aliases(hit[1], aliases):
        return hit[0]
    enc = None if lenient else read_printed(text)
    refs: tuple = ()
    if enc is None:
        enc, refs = _parse(text, aliases, lenient)
    if len(_INTERNED) >= INTERN_LIMIT:
        del _INTERNED[next(iter(_INTERNED))]
    _INTERNED[key] = (enc, refs)
    return enc


def _parse(text: str, aliases: Mapping[str, Encoding] | None, lenient: bool) -> tuple[Encoding, tuple]:
    """The encoding of `text` by the parser (every form, every error), and the aliases it read."""
    p = _Parser(text, aliases, lenient=lenient)
    if p.toks[0] == _END:
        raise ParseError("empty attribute text")
    enc = p.attribute()
    if p.toks[p.i] != _END:
        raise p.unexpected(f"unexpected {p.describe(p.i)} after the attribute", p.i)
    return enc, tuple(p.alias_refs)


# ---------------------------------------------------------------- the printed form, read by one match
# Triton's printer writes a field-driven family as `#dialect.mnemonic<{key = value, ...}>`: the keys in
# print order, each left out or not, single spaces. A text exactly in that form (the common case: every
# attribute of a TTGIR module) is read by one regular expression per family, built from its fields
# (shared_linear and amd_wmma, whose syntax is bespoke, by one written for their printer's form; padded
# shared is the parser's alone), and gives the encoding the parser would give (tests/syntax/
# test_mlir_attr.py checks it on every text we hold, on mutations of them and on random encodings);
# anything else -- other spacing, aliases, legacy keys, a value out of range, an error -- returns None and
# goes to the parser, which also words every error.

_PRINTED_INTS = r"\[(?:-?[0-9]{1,10}(?:, -?[0-9]{1,10})*)?\]"
_PRINTED_BASES = rf"\[(?:{_PRINTED_INTS}(?:, {_PRINTED_INTS})*)?\]"
_PRINTED_VALUE = {INT: r"-?[0-9]{1,10}", RANK: r"[0-9]{1,10}", BOOL: r"true|false", INTS: _PRINTED_INTS,
                  BASES: _PRINTED_BASES, CGA: _PRINTED_BASES, ENCODING: r"#[a-z_]+\.[a-z_]+<.*>"}
_PRINTED_DEPTH = 8                  # nested attributes read this way (far below MAX_NESTING)


@cache
def _printed_form(cls: type) -> tuple:
    """(the body's regular expression, with ", " before each key: the caller puts one before the body; the
    (field name, Param) pairs its groups capture, in print order; whether the body is in braces; the rank
    a class fixes, else None; its RANK fields; its CGA fields)."""
    params = dict(params_of(cls))
    order = tuple(getattr(cls, "attribute_order", None) or params)
    fixed_rank = getattr(cls, "rank", None)
    return (re.compile("".join(f"(?:, {re.escape(params[n].triton)} = ({_PRINTED_VALUE[params[n].form]}))?"
                               for n in order)),
            tuple((n, params[n]) for n in order), getattr(cls, "attribute_braces", True),
            fixed_rank if isinstance(fixed_rank, int) else None,
            tuple(n for n in order if params[n].form == RANK), tuple(n for n in order if params[n].form == CGA))


def _printed_classes() -> dict[str, type]:
    """'ttg.blocked' -> its class, for the field-driven families (not the bespoke ones)."""
    out = {f"{getattr(cls, 'attribute_dialect', 'ttg')}.{kind}": cls for kind, cls in ENCODING_CLASSES.items()
           if kind not in _BESPOKE}
    out["ttg.generic_linear"] = out["ttg.linear"]
    return out


_PRINTED_CLASSES = _printed_classes()


_TEN_DIGITS = re.compile(r"[0-9]{10}")     # only an integer of 10 digits can be out of range (9 never are)
_DECODE_JSON = json.JSONDecoder().raw_decode


def _printed_ints(raw: str) -> Any:
    """A list value as the parser reads it (`_list_value`), or None when an integer is out of range."""
    if _TEN_DIGITS.search(raw) is None and raw[1] != "[":
        return tuple(map(int, raw[1:-1].split(", "))) if len(raw) > 2 else ()
    v = _list_value(raw)
    ints = [c for b in v for c in b] if _is_bases(raw) else v
    return v if all(INT_MIN <= c <= INT_MAX for c in ints) else None


def read_printed(text: str, depth: int = 0) -> Encoding | None:
    """The encoding of `text` when it is exactly in Triton's printed form (see above), else None."""
    lt = text.find("<")
    if depth > _PRINTED_DEPTH or lt < 2 or text[0] != "#" or text[-1] != ">":
        return None
    cls = _PRINTED_CLASSES.get(text[1:lt])
    if cls is None:
        bespoke = _PRINTED_BESPOKE.get(text[1:lt])
        return bespoke(text) if bespoke is not None else None
    pattern, fields, braces, rank, rank_fields, cga_fields = _printed_form(cls)
    if braces:
        if text[lt + 1:lt + 2] != "{" or text[-2] != "}":
            return None
        body = text[lt + 2:-2]
    else:
        body = text[lt + 1:-1]
    m = pattern.fullmatch(", " + body if body else "")
    if m is None:
        return None
    values: dict[str, Any] = {}
    for (name, prm), raw in zip(fields, m.groups()):
        form = prm.form
        if raw is None:
            if form in (CGA, RANK):
                continue                                # below
            if prm.text_default is REQUIRED:
                return None
            values[name] = prm.text_default
            continue
        if form == INTS:
            v = _printed_ints(raw)
        elif form in (BASES, CGA):
            v = _printed_bases(raw)
        elif form in (INT, RANK):
            v = int(raw)
            if not INT_MIN <= v <= INT_MAX:
                return None
        elif form == BOOL:
            v = raw == "true"
        else:
            v = read_printed(raw, depth + 1)
        if v is None:
            return None
        values[name] = v
        if prm.gives_rank:
            rank = len(v)
    for name in rank_fields:
        if name not in values:
            values[name] = implied_rank(cls, values)
        rank = values[name]
    for name in cga_fields:
        cga = values.setdefault(name, ())
        if cga and (rank is None or any(len(b) != rank for b in cga)):
            return None
    check = _CHECKS.get(cls.kind)
    if check is not None and not check[0](values):
        return None
    return _built(cls, values)


def _built(cls: type, values: Mapping[str, Any]) -> Encoding | None:
    try:
        return cls(**values)
    except CheckerError:                # the parser says it, at its place
        return None


_PRINTED_SHARED_LINEAR = re.compile(rf"#ttg\.shared_linear<\{{offset = ({_PRINTED_BASES})(?:, block = "
                                    rf"({_PRINTED_BASES}))?\}}, alignment = (-?[0-9]{{1,10}})>")
_PRINTED_WMMA = re.compile(rf"#ttg\.amd_wmma<\{{version = (-?[0-9]{{1,10}}), isTranspose = (true|false), "
                           rf"ctaLayout = \{{([^{{}}]*)\}}(?:, CGALayout = ({_PRINTED_BASES}))?"
                           rf"(?:, instrShape = ({_PRINTED_INTS}))?\}}>")
_PRINTED_WMMA_CTA = re.compile(rf"(?:, register = ({_PRINTED_BASES}))?(?:, warp = ({_PRINTED_BASES}))?")


def _printed_bases(raw: str | None) -> tuple | None:
    """A bases value as the parser reads it (() when absent), or None when an integer is out of range."""
    if raw is None:
        return ()
    if _TEN_DIGITS.search(raw) is None:
        try:                                    # the printed form is JSON unless an integer has leading zeros
            return tuple(map(tuple, _DECODE_JSON(raw)[0]))
        except ValueError:
            pass
    v = _printed_ints(raw)
    return None if v is None else tuple(v)


def _printed_shared_linear(text: str) -> Encoding | None:
    """`_print_shared_linear`'s form, read as `_read_shared_linear` reads it."""
    m = _PRINTED_SHARED_LINEAR.fullmatch(text)
    if m is None:
        return None
    offset, block, alignment = _printed_bases(m.group(1)), _printed_bases(m.group(2)), int(m.group(3))
    if offset is None or block is None or not bases_rank(offset, block) or not INT_MIN <= alignment <= INT_MAX:
        return None
    return _built(SharedLinearEncoding, {"offset_bases": offset, "block_bases": block, "alignment_bytes": alignment})


def _printed_amd_wmma(text: str) -> Encoding | None:
    """`_print_amd_wmma`'s form, read as `_read_amd_wmma` reads it (the rank deduced by `implied_rank`)."""
    m = _PRINTED_WMMA.fullmatch(text)
    cta = m and _PRINTED_WMMA_CTA.fullmatch(", " + m.group(3) if m.group(3) else "")
    if not cta:
        return None
    version = int(m.group(1))
    registers, warps, cga = _printed_bases(cta.group(1)), _printed_bases(cta.group(2)), _printed_bases(m.group(4))
    instr = _printed_ints(m.group(5)) if m.group(5) else dict(params_of(AmdWmmaEncoding))["instr_shape"].text_default
    if None in (registers, warps, cga, instr) or not INT_MIN <= version <= INT_MAX:
        return None
    rank = implied_rank(AmdWmmaEncoding, {"register_bases": registers, "warp_bases": warps, "cga_layout": cga})
    if any(len(b) != rank for b in registers + warps + cga):
        return None
    return _built(AmdWmmaEncoding, {"version": version, "is_transposed": m.group(2) == "true",
                                    "register_bases": registers, "warp_bases": warps, "instr_shape": instr,
                                    "cga_layout": cga, "rank": rank})


_PRINTED_BESPOKE = {"ttg.shared_linear": _printed_shared_linear, "ttg.amd_wmma": _printed_amd_wmma}


# Parse once: (text, lenient) -> (encoding, the aliases it read as (name, key found, value)). A hit stands
# only when every alias the text read resolves to the same value now (aliases are part of the key, the
# cheap way: only those the text uses). Encodings are immutable, so one value serves every caller.
INTERN_LIMIT = 4096
_INTERNED: dict[tuple[str, bool], tuple[Encoding, tuple]] = {}


def _same_aliases(refs: tuple, aliases: Mapping[str, Encoding] | None) -> bool:
    if not refs:
        return True
    aliases = aliases or {}
    for name, key, value in refs:
        found = name if name in aliases else ("#" + name if "#" + name in aliases else None)
        if found != key:
            return False
        now = aliases[found]
        if now is not value and now != value:
            return False
    return True


def clear_parse_cache() -> None:
    """Forget every interned parse, and the tokens seen (benchmarks measuring a cold parse)."""
    _INTERNED.clear()
    _LISTS.clear()


def print_attribute(encoding: Encoding) -> str:
    """Triton's canonical text for an encoding (parents inline, no aliases); each encoding value is printed
    once (encodings are immutable: every report record of a module names the same few)."""
    try:
        printed = _PRINTED.get(encoding)
    except TypeError:                   # a field holding a list (an encoding built by hand): not hashable
        printed = None
        encoding_key = None
    else:
        encoding_key = encoding
    if printed is None:
        printer = _PRINTERS.get(getattr(encoding, "kind", None))
        if printer is None:
            raise ParseError(f"no attribute syntax for {type(encoding).__name__}")
        printed = printer(encoding)
        if encoding_key is not None:
            if len(_PRINTED) >= INTERN_LIMIT:
                del _PRINTED[next(iter(_PRINTED))]
            _PRINTED[encoding_key] = printed
    return printed


_PRINTED: dict[Encoding, str] = {}


def parse_alias_definitions(text: str) -> dict[str, Encoding]:
    """Every ``#name = #ttg.xxx<...>`` definition of a text (a .ttgir file or just the alias lines).

    A definition may span several lines and use earlier aliases. Memory-space
    aliases (``#ttg.shared_memory``) and attributes of other dialects are
    skipped; so is every line that does not start with ``#name =``.
    """
    table: dict[str, Encoding] = {}
    line_start = 0
    while line_start < len(text):
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        header = _alias_header(text, line_start, line_end, table)
        if header is not None:
            name, start = header
            p = _Parser(text, table, start=start, end=_attribute_end(text, start), multiline=True)
            try:
                table[name] = p.attribute()
            except ParseError as e:
                raise ParseError(f"alias #{name}: {e.message}", field=e.field,
                                 line=text.count("\n", 0, line_start) + 1) from None
            line_end = text.find("\n", p.token_end(p.i - 1))
            line_end = len(text) if line_end < 0 else line_end
        line_start = line_end + 1
    return table


def _alias_header(text: str, i: int, line_end: int, table: Mapping[str, Encoding]) -> tuple[str, int] | None:
    """(name, where its value starts) when the line at i starts ``#name = #<layout attribute or known
    alias>``, else None."""
    while i < line_end and text[i] in " \t":
        i += 1
    if not text.startswith("#", i):
        return None
    words = []
    for m in _TOKEN.finditer(text, i):
        words.append((_word(m), m.start()))
        if len(words) == 3:
            break
    if len(words) < 3 or any(_lex_error(w) for w, _ in words):
        return None
    (name, _), (eq, _), (value, start) = words
    if name[0] != "#" or eq != "=" or value[0] != "#" or start >= line_end:
        return None
    return (name[1:], start) if _defines_layout(value[1:]) or value[1:] in table else None


def _attribute_end(text: str, start: int) -> int:
    """Where the attribute at `start` ends, for its lexing: after the token closing its first '<', or after
    the token following its head when that is no '<' (the parser reads no further); the end of the text when
    it never closes. Brackets of any kind count alike: where they do not match, the parser stops sooner."""
    depth = 0
    for k, m in enumerate(_TOKEN.finditer(text, start)):
        t = _word(m)
        if k == 1 and t != "<":
            return m.end()
        if t in _OPENERS:
            depth += 1
        elif t in _CLOSERS:
            depth -= 1
            if depth <= 0:
                return m.end()
    return len(text)


def _defines_layout(name: str) -> bool:
    dialect, dot, mnemonic = name.partition(".")
    return bool(dot) and dialect in _DIALECTS and f"{_DIALECTS[dialect]}.{mnemonic}" not in _MEMORY_SPACES


__all__ = ["parse_attribute", "print_attribute", "parse_alias_definitions", "is_permutation_matrix"]
