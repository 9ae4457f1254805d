"""Triton's layout attribute text, read and written exactly as Triton 3.9 prints it.

    parse_attribute("#ttg.slice<{dim = 0, parent = #blocked}>", aliases)  -> SliceEncoding
    print_attribute(encoding)                                          -> "#ttg.slice<{dim = 0, parent = ...}>"
    parse_alias_definitions("#blocked = #ttg.blocked<{...}>\\n...")      -> {"blocked": BlockedEncoding}

The grammar is the part of MLIR's attribute syntax that layouts use:

    attribute := '#' DIALECT '.' NAME '<' body '>'  |  '#' ALIAS
    value     := INT | 'true' | 'false' | '[' values ']' | '{' entries '}' | attribute
    entries   := [KEY '=' value (',' KEY '=' value)*]

Most bodies are ``{entries}``; ``padded_shared`` is ``[I:+P, ...] {entries}``,
``shared_linear`` is ``{entries}, alignment = N``, and the ``ttng`` tensor
memory encodings are bare ``entries``. ``#triton_gpu.`` is accepted for
``#ttg.`` (and ``#triton_nvidia_gpu.`` for ``#ttng.``). Optional fields take
Triton's defaults; a CGA layout is read from ``CGALayout = [[...]]`` or from
the legacy ``CTAsPerCGA, CTASplitNum, CTAOrder`` triple (converted as Triton
converts it). Parsing checks syntax and value types only: Triton's verifier
rules are ``encoding.validate()``.

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
"""

from __future__ import annotations

import re
from operator import itemgetter
from typing import Any, Callable, Mapping

from ..encodings.base import Bases, Encoding
from ..encodings.cga import cga_bases_from_split_params
from ..errors import CheckerError, ParseError
from ..layout import is_power_of_two, log2
from ..limits import INT_MAX, INT_MIN, MAX_NESTING, clip, printable

_DIALECTS = {"ttg": "ttg", "triton_gpu": "ttg", "ttng": "ttng", "triton_nvidia_gpu": "ttng"}
_MEMORY_SPACES = {"ttg.shared_memory", "ttng.tensor_memory"}
_PUNCT = "<>{}[]=,:+"
_CLOSERS = {"<": ">", "{": "}", "[": "]"}
_LEGACY_CGA = ("CTAsPerCGA", "CTASplitNum", "CTAOrder")
_IGNORES_UNKNOWN_KEYS = {"nvidia_mma", "amd_mfma", "amd_wmma", "slice", "linear", "generic_linear"}


# ---------------------------------------------------------------- tokens

class _Token(tuple):
    """(kind, text, pos, value): a plain tuple with named fields. kind is "hash" (text = name after '#'),
    "ident", "int", "punct" or "end"."""

    __slots__ = ()
    kind = property(itemgetter(0))
    text = property(itemgetter(1))
    pos = property(itemgetter(2))
    value = property(itemgetter(3))

    def describe(self) -> str:
        if self[0] == "end":
            return "end of text"
        text = clip(self[1], 40)
        return f"'#{text}'" if self[0] == "hash" else f"'{text}'"


_new_token = tuple.__new__
_KINDS = (None, None, "hash", "ident", "int", "punct")

# The tokens of an ASCII text, each after its whitespace and // comments (group 1): the character classes are
# exactly those of the lazy lexer's tests on ASCII (str.isspace also holds for \x1c-\x1f). Group 2 '#name',
# 3 ident, 4 int-like word, 5 punctuation.
_SKIP = r"(?:[ \t\n\r\f\v\x1c-\x1f]+|//[^\n]*(?=\n|\Z))*"    # a comment runs to the end of its line
_TOKEN_RE = re.compile(rf"({_SKIP})(?:#([A-Za-z_][A-Za-z0-9_$.]*)|([A-Za-z_][A-Za-z0-9_$.]*)"
                       r"|(-?[0-9][A-Za-z0-9_$.]*)|([<>{}\[\]=,:+]))")
_SKIP_RE = re.compile(_SKIP)


def _lex_all(text: str) -> list | None:
    """Every token of an ASCII text at once (then the end token), or None when the text has something the
    lazy lexer reports as an error, or is not ASCII: the caller then lexes lazily, with the same messages.
    findall skips what it cannot lex, which shows as positions that do not reach the end of the text."""
    if not text.isascii():
        return None
    out = []
    append = out.append
    pos = 0
    for ws, name, ident, num, punct in _TOKEN_RE.findall(text):
        pos += len(ws)
        if punct:
            append(_new_token(_Token, ("punct", punct, pos, 0)))
            pos += 1
        elif ident:
            append(_new_token(_Token, ("ident", ident, pos, 0)))
            pos += len(ident)
        elif name:
            append(_new_token(_Token, ("hash", name, pos, 0)))
            pos += len(name) + 1
        else:
            if not (num[1:] if num[0] == "-" else num).isdigit() or len(num) >= 10:
                return None         # '12ab', '1_0': the lazy lexer's "is not an integer"; a long one: its range
            append(_new_token(_Token, ("int", num, pos, int(num))))
            pos += len(num)
    end = _SKIP_RE.match(text, pos).end()
    if end != len(text):
        return None
    append(_new_token(_Token, ("end", "", end, 0)))
    return out


_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_ASCII_DIGITS = frozenset("0123456789")
_IDENT_CHARS = _ASCII_LETTERS | _ASCII_DIGITS | frozenset("$.")
_SPACES = frozenset(" \t\n\r\f\v\x1c\x1d\x1e\x1f")    # what str.isspace holds for in ASCII, and no more


def _is_ident_start(ch: str) -> bool:
    """MLIR's lexer: identifiers are ASCII (letters, digits, '_', '$', '.'); so are integers (0-9 only:
    '４' and '²' are no digits here, whatever str.isdigit says)."""
    return ch in _ASCII_LETTERS


def _is_ident_char(ch: str) -> bool:
    return ch in _IDENT_CHARS


class _Parser:
    """Recursive descent over a lazily lexed text (the text after an attribute is never lexed)."""

    def __init__(self, text: str, aliases: Mapping[str, Encoding] | None, pos: int = 0, lenient: bool = False,
                 tokens: list | None = None):
        self.text = text
        self.aliases = aliases or {}
        self.pos = pos
        self.lenient = lenient
        self.multiline = "\n" in text
        self.alias_refs: list[tuple[str, str, Encoding]] = []   # (name, key found, value) of every alias read
        self._toks = tokens                 # every token, lexed up front (parse_attribute), or None: lazy
        self._i = 0
        self.depth = 0                      # attributes, lists and dictionaries open (at most MAX_NESTING)
        self._tok: _Token | None = tokens[0] if tokens else None

    @property
    def tok(self) -> _Token:
        """The next token, lexed on first look (so nothing after the attribute is lexed early)."""
        tok = self._tok
        if tok is None:
            tok = self._tok = self._lex()
        return tok

    # -- errors

    def where(self, pos: int) -> str:
        line = self.text.count("\n", 0, pos) + 1
        col = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return f"line {line}, column {col}" if self.multiline else f"column {col}"

    def error(self, message: str, pos: int, field: str | None = None) -> ParseError:
        return ParseError(f"{message} (at {self.where(pos)})", field=field)

    # -- lexing

    def _lex(self) -> _Token:
        text, i = self.text, self.pos
        while True:
            while i < len(text) and text[i] in _SPACES:
                i += 1
            if text.startswith("//", i):
                i = text.find("\n", i)
                i = len(text) if i < 0 else i
                continue
            break
        if i >= len(text):
            self.pos = i
            return _new_token(_Token, ("end", "", i, 0))
        m = _TOKEN_RE.match(text, i) if text[i].isascii() else None
        if m is not None and m.lastindex != 4 and (m.end() >= len(text) or text[m.end()].isascii()):
            g = m.lastindex                   # fast path; ints (and anything touching non-ASCII) below
            self.pos = m.end()
            return _new_token(_Token, (_KINDS[g], m.group(g), i, 0))
        ch, start = text[i], i
        if ch == "#":
            i += 1
            if i >= len(text) or not _is_ident_start(text[i]):
                raise self.error("'#' must be followed by an encoding or alias name", start)
            while i < len(text) and _is_ident_char(text[i]):
                i += 1
            tok = _new_token(_Token, ("hash", text[start + 1:i], start, 0))
        elif _is_ident_start(ch):
            while i < len(text) and _is_ident_char(text[i]):
                i += 1
            tok = _new_token(_Token, ("ident", text[start:i], start, 0))
        elif ch in _ASCII_DIGITS or (ch == "-" and i + 1 < len(text) and text[i + 1] in _ASCII_DIGITS):
            i += 1
            while i < len(text) and (_is_ident_char(text[i])):
                i += 1
            word = text[start:i]
            digits = word[1:] if word.startswith("-") else word
            if not all(c in _ASCII_DIGITS for c in digits):
                raise self.error(f"'{clip(word, 40)}' is not an integer", start)
            if len(digits) > 10 or not INT_MIN <= int(word) <= INT_MAX:
                raise self.error(f"the integer {clip(word, 24)} is out of range: attribute integers are 32-bit "
                                 f"(-2^31 to 2^31 - 1, the limit)", start)
            tok = _new_token(_Token, ("int", word, start, int(word)))
        elif ch in _PUNCT:
            i += 1
            tok = _new_token(_Token, ("punct", ch, start, 0))
        else:
            raise self.error(f"unexpected character {printable(ch)}", start)
        self.pos = i
        return tok

    def advance(self) -> _Token:
        toks = self._toks
        if toks is None:
            tok = self.tok
            self._tok = None
            return tok
        tok = self._tok
        if tok[0] != "end":             # at the end the lazy lexer keeps answering 'end'
            self._i += 1
            self._tok = toks[self._i]
        return tok

    def at(self, punct: str) -> bool:
        tok = self._tok or self.tok
        return tok[0] == "punct" and tok[1] == punct

    def expect(self, punct: str, opener: _Token | None = None) -> _Token:
        if not self.at(punct):
            closing = f" to close '{opener.text}' opened at {self.where(opener.pos)}" if opener else ""
            raise self.error(f"expected '{punct}'{closing}, got {self.tok.describe()}", self.tok.pos)
        return self.advance()

    def expect_ident(self, word: str) -> _Token:
        if self.tok.kind != "ident" or self.tok.text != word:
            raise self.error(f"expected '{word}', got {self.tok.describe()}", self.tok.pos)
        return self.advance()

    def enter(self, pos: int) -> None:
        """One more attribute, list or dictionary open; refused past MAX_NESTING."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"the attribute nests more than {MAX_NESTING} levels deep (the limit)", pos)

    # -- values

    def value(self) -> Any:
        tok = self.tok
        if tok.kind == "int":
            self.advance()
            return tok.value
        if tok.kind == "ident" and tok.text in ("true", "false"):
            self.advance()
            return tok.text == "true"
        if tok.kind == "hash":
            return self.attribute()
        if self.at("["):
            return self.sequence("[", "]", self.value)
        if self.at("{"):
            return self.dictionary()
        raise self.error(f"expected a value, got {tok.describe()}", tok.pos)

    def sequence(self, open_ch: str, close_ch: str, item: Callable[[], Any]) -> list:
        if self._toks is not None and open_ch == "[" and item == self.value:
            ints = self._int_list()
            if ints is not None:
                return ints
        opener = self.expect(open_ch)
        self.enter(opener.pos)
        out = []
        if self.at(close_ch):
            self.advance()
            self.depth -= 1
            return out
        while True:
            out.append(item())
            if self.at(","):
                self.advance()
                continue
            if self.at(close_ch):
                self.advance()
                self.depth -= 1
                return out
            raise self.error(f"expected ',' or '{close_ch}' to close '{open_ch}' opened at "
                             f"{self.where(opener.pos)}, got {self.tok.describe()}", self.tok.pos)

    def _int_list(self) -> list | None:
        """``[INT, ...]`` read straight off the token list (what sequence + value give), or None (nothing
        consumed) when the list is anything else."""
        toks, i = self._toks, self._i + 1
        out = []
        while True:
            tok = toks[i]
            if tok[0] != "int":
                return None
            out.append(tok[3])
            nxt = toks[i + 1]
            if nxt[0] != "punct":
                return None
            if nxt[1] == ",":
                i += 2
            elif nxt[1] == "]":
                self._i = i + 2
                self._tok = toks[i + 2]
                return out
            else:
                return None

    def dictionary(self) -> "_Fields":
        """``{entries}``."""
        opener = self.expect("{")
        return self.entries(opener, "}")

    def entries(self, opener: _Token, close_ch: str) -> "_Fields":
        """``key = value`` pairs separated by commas, then close_ch (which closes opener)."""
        fields = _Fields(self, self.tok.pos)
        self.enter(opener.pos)
        while not self.at(close_ch):
            key = self.tok
            if key.kind != "ident":
                raise self.error(f"expected a key or '{close_ch}', got {key.describe()}", key.pos)
            self.advance()
            self.expect("=")
            value_pos = self.tok.pos
            if key.text in fields.entries:
                raise self.error(f"key '{key.text}' is given twice", key.pos, key.text)
            fields.entries[key.text] = (self.value(), value_pos)
            fields.key_pos[key.text] = key.pos
            if self.at(close_ch):
                break
            if not self.at(","):
                raise self.error(f"expected ',' or '{close_ch}' to close '{opener.text}' opened at "
                                 f"{self.where(opener.pos)}, got {self.tok.describe()}", self.tok.pos)
            self.advance()
            if self.at(close_ch):
                raise self.error(f"expected a key after ',', got {self.tok.describe()}", self.tok.pos)
        self.advance()
        self.depth -= 1
        return fields

    # -- attributes

    def attribute(self) -> Encoding:
        head = self.tok
        if head.kind != "hash":
            raise self.error(f"expected an attribute starting with '#', got {head.describe()}", head.pos)
        self.advance()
        dialect, dot, mnemonic = head.text.partition(".")
        if dot and dialect in _DIALECTS:
            name = f"{_DIALECTS[dialect]}.{mnemonic}"
            family = _FAMILIES.get(name)
            if family is None:
                known = ", ".join(sorted(f"#{n}" for n in _FAMILIES))
                raise self.error(f"unknown encoding '#{clip(head.text, 40)}' (known: {clip(known, 120)})", head.pos)
            if not self.at("<"):
                raise self.error(f"expected '<' after '#{head.text}', got {self.tok.describe()}", self.tok.pos)
            self.enter(head.pos)
            try:
                enc = family(self, mnemonic)
                self.depth -= 1
                return enc
            except ParseError:
                raise
            except CheckerError as e:  # a legacy field that cannot be converted
                raise self.error(e.message, head.pos, e.field) from None
        for key in (head.text, "#" + head.text):
            if key in self.aliases:
                value = self.aliases[key]
                self.alias_refs.append((head.text, key, value))
                return value
        raise self.error(f"unknown alias '#{clip(head.text, 40)}'", head.pos)


class _Fields:
    """The entries of one dictionary, read once each with a type check; leftovers are unknown keys."""

    def __init__(self, parser: _Parser, pos: int):
        self.parser = parser
        self.pos = pos
        self.kind = ""
        self.entries: dict[str, tuple[Any, int]] = {}     # key -> (value, its offset in the text)
        self.key_pos: dict[str, int] = {}
        self.used: set[str] = set()

    def has(self, key: str) -> bool:
        return key in self.entries

    def _get(self, key: str, required: bool) -> tuple[Any, int] | None:
        if key not in self.entries:
            if required:
                raise self.parser.error(f"{self.kind}: missing key '{key}'", self.pos, key)
            return None
        self.used.add(key)
        return self.entries[key]

    def _bad(self, key: str, want: str, pos: int) -> ParseError:
        return self.parser.error(f"{self.kind}: '{key}' must be {want}", pos, key)

    def integer(self, key: str, default: int | None = None) -> int:
        got = self._get(key, default is None)
        if got is None:
            return default
        if not _is_int(got[0]):
            raise self._bad(key, "an integer", got[1])
        return got[0]

    def boolean(self, key: str, default: bool | None = None) -> bool:
        got = self._get(key, default is None)
        if got is None:
            return default
        if not isinstance(got[0], bool):
            raise self._bad(key, "true or false", got[1])
        return got[0]

    def integers(self, key: str, default: tuple[int, ...] | None = None) -> tuple[int, ...]:
        got = self._get(key, default is None)
        if got is None:
            return default
        if not isinstance(got[0], list) or not all(_is_int(v) for v in got[0]):
            raise self._bad(key, "a list of integers, e.g. [1, 2]", got[1])
        return tuple(got[0])

    def bases(self, key: str, default: Bases | None = None) -> Bases:
        got = self._get(key, default is None)
        if got is None:
            return default
        if not isinstance(got[0], list) or not all(
                isinstance(b, list) and all(_is_int(v) for v in b) for b in got[0]):
            raise self._bad(key, "a list of lists of integers, e.g. [[0, 1], [1, 0]]", got[1])
        return tuple(tuple(b) for b in got[0])

    def encoding(self, key: str) -> Encoding:
        value, pos = self._get(key, True)
        if not isinstance(value, Encoding):
            raise self._bad(key, "an encoding attribute", pos)
        return value

    def dictionary(self, key: str) -> "_Fields":
        value, pos = self._get(key, True)
        if not isinstance(value, _Fields):
            raise self._bad(key, "a dictionary {...}", pos)
        return value

    def finish(self) -> None:
        if self.parser.lenient and self.kind in _IGNORES_UNKNOWN_KEYS:
            return
        for key in self.entries:
            if key not in self.used:
                raise self.parser.error(f"{self.kind}: unknown key '{key}'", self.key_pos[key], key)

    def cga(self, rank: int) -> Bases:
        """``CGALayout = [[...]]`` or the legacy CTAsPerCGA/CTASplitNum/CTAOrder; () when absent."""
        legacy = [k for k in _LEGACY_CGA if self.has(k)]
        if self.has("CGALayout"):
            if legacy:
                raise self.parser.error(f"{self.kind}: give either CGALayout or {legacy[0]}, not both",
                                        self.entries[legacy[0]][1], legacy[0])
            bases = self.bases("CGALayout")
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
                                    f"(missing '{missing}')", self.pos, missing)
        return cga_bases_from_split_params(self.integers("CTAsPerCGA"), self.integers("CTASplitNum"),
                                           self.integers("CTAOrder"), self.kind)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# ---------------------------------------------------------------- families

_FAMILIES: dict[str, Callable[[_Parser, str], Encoding]] = {}
_PRINTERS: dict[str, Callable[[Encoding], str]] = {}


def _family(*names: str):
    def deco(fn):
        for n in names:
            _FAMILIES[n] = fn
        return fn
    return deco


def _printer(*kinds: str):
    def deco(fn):
        for k in kinds:
            _PRINTERS[k] = fn
        return fn
    return deco


def _body(p: _Parser, kind: str) -> _Fields:
    """``<{entries}>``."""
    opener = p.expect("<")
    fields = p.dictionary()
    p.expect(">", opener)
    fields.kind = kind
    return fields


def _ints_text(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _bases_text(bases) -> str:
    return "[" + ", ".join(_ints_text(b) for b in bases) + "]"


def _bool_text(v: bool) -> str:
    return "true" if v else "false"


def _cga_text(bases: Bases) -> str:
    return f", CGALayout = {_bases_text(bases)}" if bases else ""


def _rank_of(*groups: Bases) -> int:
    """Length of the first basis found (0 when every group is empty)."""
    for bs in groups:
        if bs:
            return len(bs[0])
    return 0


@_family("ttg.blocked")
def _parse_blocked(p: _Parser, mnemonic: str) -> Encoding:
    from ..encodings.blocked import BlockedEncoding
    f = _body(p, mnemonic)
    spt = f.integers("sizePerThread")
    enc = BlockedEncoding(spt, f.integers("threadsPerWarp"), f.integers("warpsPerCTA"), f.integers("order"),
                          f.cga(len(spt)))
    f.finish()
    return enc


@_printer("blocked")
def _print_blocked(e) -> str:
    return (f"#ttg.blocked<{{sizePerThread = {_ints_text(e.size_per_thread)}, "
            f"threadsPerWarp = {_ints_text(e.threads_per_warp)}, warpsPerCTA = {_ints_text(e.warps_per_cta)}, "
            f"order = {_ints_text(e.order)}{_cga_text(e.cga_layout)}}}>")


@_family("ttg.slice")
def _parse_slice(p: _Parser, mnemonic: str) -> Encoding:
    from ..encodings.slice import SliceEncoding
    f = _body(p, mnemonic)
    enc = SliceEncoding(f.integer("dim"), f.encoding("parent"))
    f.finish()
    return enc


@_printer("slice")
def _print_slice(e) -> str:
    return f"#ttg.slice<{{dim = {e.dim}, parent = {print_attribute(e.parent)}}}>"


@_family("ttg.dot_op")
def _parse_dot_op(p: _Parser, mnemonic: str) -> Encoding:
    from ..encodings.dot_operand import DotOperandEncoding
    f = _body(p, mnemonic)
    enc = DotOperandEncoding(f.integer("opIdx"), f.encoding("parent"), f.integer("kWidth", 0))
    f.finish()
    return enc


@_printer("dot_op")
def _print_dot_op(e) -> str:
    k_width = f", kWidth = {e.k_width}" if e.k_width else ""
    return f"#ttg.dot_op<{{opIdx = {e.op_idx}, parent = {print_attribute(e.parent)}{k_width}}}>"


def _linear_bases(p: _Parser, f: _Fields, names: tuple[str, ...]) -> tuple[Bases, ...]:
    """The named bases of a linear layout (all required); Triton rejects a layout with none."""
    groups = tuple(f.bases(n) for n in names)
    if not _rank_of(*groups):
        raise p.error(f"{f.kind}: an empty layout (no bases) is not supported", f.pos)
    return groups


@_family("ttg.linear", "ttg.generic_linear")
def _parse_linear(p: _Parser, mnemonic: str) -> Encoding:
    from ..encodings.linear import LinearEncoding
    f = _body(p, mnemonic)
    enc = LinearEncoding(*_linear_bases(p, f, ("register", "lane", "warp", "block")))
    f.finish()
    return enc


def is_permutation_matrix(*groups: Bases) -> bool:
    """Triton's isPermutationMatrixLayout on the layout these bases span (out sizes inferred).

    After dropping zero bases, every basis must be a single power of two in one
    dimension, all distinct, and as many as the output bits.
    """
    rank = _rank_of(*groups)
    sizes = [1] * rank
    seen = set()
    for bs in groups:
        for b in bs:
            if not any(b):
                continue
            nonzero = [(k, c) for k, c in enumerate(b) if c]
            if len(nonzero) != 1 or not is_power_of_two(nonzero[0][1]) or tuple(b) in seen:
                return False
            seen.add(tuple(b))
            k, c = nonzero[0]
            sizes[k] = max(sizes[k], 2 * c)
    return len(seen) == sum(log2(s) for s in sizes)


@_printer("linear")
def _print_linear(e) -> str:
    name = "linear" if is_permutation_matrix(e.register, e.lane, e.warp, e.block) else "generic_linear"
    return (f"#ttg.{name}<{{register = {_bases_text(e.register)}, lane = {_bases_text(e.lane)}, "
            f"warp = {_bases_text(e.warp)}, block = {_bases_text(e.block)}}}>")


@_family("ttg.nvidia_mma")
def _parse_nvidia_mma(p: _Parser, mnemonic: str) -> Encoding:
    from ..encodings.nvidia_mma import NvidiaMmaEncoding
    f = _body(p, mnemonic)
    warps = f.integers("warpsPerCTA")
    enc = NvidiaMmaEncoding(f.integer("versionMajor"), f.integer("versionMinor", 0), warps, f.integers("instrShape"),
                            f.cga(len(warps)))
    f.finish()
    return enc


@_printer("nvidia_mma")
def _print_nvidia_mma(e) -> str:
    return (f"#ttg.nvidia_mma<{{versionMajor = {e.version_major}, versionMinor = {e.version_minor}, "
            f"warpsPerCTA = {_ints_text(e.warps_per_cta)}{_cga_text(e.cga_layout)}, "
            f"instrShape = {_ints_text(e.instr_shape)}}}>")


@_family("ttg.amd_mfma")
def _parse_amd_mfma(p: _Parser, mnemonic: str) -> Encoding:
    """tilesPerWarp absent (or all ones) is stored as (); elementBitWidth defaults to 32."""
    from ..encodings.amd_mfma import AmdMfmaEncoding
    f = _body(p, mnemonic)
    warps = f.integers("warpsPerCTA")
    lenient = p.lenient
    version, instr = f.integer("version", 0 if lenient else None), f.integers("instrShape")
    transposed = f.boolean("isTransposed", False if lenient else None)
    tiles = f.integers("tilesPerWarp", ())
    enc = AmdMfmaEncoding(version, warps, instr, transposed,
                          tiles_per_warp=() if all(t == 1 for t in tiles) else tiles,
                          element_bit_width=f.integer("elementBitWidth", 32), cga_layout=f.cga(len(warps)))
    f.finish()
    return enc


@_printer("amd_mfma")
def _print_amd_mfma(e) -> str:
    tiles = f", tilesPerWarp = {_ints_text(e.tiles_per_warp)}" \
        if any(t != 1 for t in e.tiles_per_warp) else ""
    width = f", elementBitWidth = {e.element_bit_width}" if e.element_bit_width != 32 else ""
    return (f"#ttg.amd_mfma<{{version = {e.version}, warpsPerCTA = {_ints_text(e.warps_per_cta)}, "
            f"instrShape = {_ints_text(e.instr_shape)}, isTransposed = {_bool_text(e.is_transposed)}"
            f"{_cga_text(e.cga_layout)}{tiles}{width}}}>")


_WMMA_DEFAULT_INSTR = (16, 16, 16)


@_family("ttg.amd_wmma")
def _parse_amd_wmma(p: _Parser, mnemonic: str) -> Encoding:
    """ctaLayout = {register = ..., warp = ...} (either may be absent: no bases).

    The rank is ``rank = N`` if given, else the length of the first basis of
    ctaLayout or CGALayout, else 2. (Triton's own parser assumes 2 when
    ``rank`` is absent, so it rejects the rank-3 text its printer writes.)
    """
    from ..encodings.amd_wmma import AmdWmmaEncoding
    f = _body(p, mnemonic)
    cta = f.dictionary("ctaLayout")
    cta.kind = f"{mnemonic} ctaLayout"
    registers, warps = cta.bases("register", ()), cta.bases("warp", ())
    cta.finish()
    cga_value = f.entries.get("CGALayout", (None,))[0]
    cga_first = cga_value[0] if isinstance(cga_value, list) and cga_value and isinstance(cga_value[0], list) else []
    deduced = _rank_of(registers, warps) or len(cga_first)
    rank = f.integer("rank", deduced or 2)
    for name, bs in (("register", registers), ("warp", warps)):
        if any(len(b) != rank for b in bs):
            raise p.error(f"{mnemonic}: ctaLayout '{name}' bases do not have the rank {rank}",
                          f.entries["ctaLayout"][1], "ctaLayout")
    enc = AmdWmmaEncoding(f.integer("version"), f.boolean("isTranspose", False), registers, warps,
                          instr_shape=f.integers("instrShape", _WMMA_DEFAULT_INSTR), cga_layout=f.cga(rank), rank=rank)
    f.finish()
    return enc


@_printer("amd_wmma")
def _print_amd_wmma(e) -> str:
    cta = ", ".join(f"{name} = {_bases_text(bs)}" for name, bs in (("register", e.register_bases),
                                                                    ("warp", e.warp_bases)) if bs)
    instr = f", instrShape = {_ints_text(e.instr_shape)}" if tuple(e.instr_shape) != _WMMA_DEFAULT_INSTR else ""
    return (f"#ttg.amd_wmma<{{version = {e.version}, isTranspose = {_bool_text(e.is_transposed)}, "
            f"ctaLayout = {{{cta}}}{_cga_text(e.cga_layout)}{instr}}}>")


def _parse_swizzled_fields(f: _Fields) -> tuple:
    order = f.integers("order")
    return f.integer("vec"), f.integer("perPhase"), f.integer("maxPhase"), order, f.cga(len(order))


@_family("ttg.swizzled_shared")
def _parse_swizzled_shared(p: _Parser, mnemonic: str) -> Encoding:
    from ..encodings.swizzled_shared import SwizzledSharedEncoding
    f = _body(p, mnemonic)
    enc = SwizzledSharedEncoding(*_parse_swizzled_fields(f))
    f.finish()
    return enc


@_family("ttg.amd_rotating_shared")
def _parse_amd_rotating_shared(p: _Parser, mnemonic: str) -> Encoding:
    from ..encodings.amd_rotating_shared import AmdRotatingSharedEncoding
    f = _body(p, mnemonic)
    enc = AmdRotatingSharedEncoding(*_parse_swizzled_fields(f))
    f.finish()
    return enc


@_printer("swizzled_shared", "amd_rotating_shared")
def _print_swizzled(e) -> str:
    return (f"#ttg.{e.kind}<{{vec = {e.vec}, perPhase = {e.per_phase}, maxPhase = {e.max_phase}, "
            f"order = {_ints_text(e.order)}{_cga_text(e.cga_layout)}}}>")


@_family("ttg.nvmma_shared")
def _parse_nvmma_shared(p: _Parser, mnemonic: str) -> Encoding:
    """The rank is ``rank = N``, else the length of the CGA bases (or CTAOrder), else 2."""
    from ..encodings.nvmma_shared import NvmmaSharedEncoding
    f = _body(p, mnemonic)
    cga_value = f.entries.get("CGALayout", (None,))[0]
    legacy_order = f.entries.get("CTAOrder", (None,))[0]
    if isinstance(cga_value, list) and cga_value and isinstance(cga_value[0], list):
        deduced = len(cga_value[0])
    elif isinstance(legacy_order, list):
        deduced = len(legacy_order)
    else:
        deduced = 2
    rank = f.integer("rank", deduced)
    enc = NvmmaSharedEncoding(f.integer("swizzlingByteWidth"), f.boolean("transposed", False),
                              f.integer("elementBitWidth"),
                              fp4_padded=f.boolean("fp4Padded", False), rank=rank, cga_layout=f.cga(rank))
    f.finish()
    return enc


@_printer("nvmma_shared")
def _print_nvmma_shared(e) -> str:
    fp4 = ", fp4Padded = true" if e.fp4_padded else ""
    if e.cga_layout:
        tail = _cga_text(e.cga_layout)
    else:
        tail = f", rank = {e.rank}" if e.rank != 2 else ""
    return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {e.swizzling_byte_width}, "
            f"transposed = {_bool_text(e.transposed)}, elementBitWidth = {e.element_bit_width}{fp4}{tail}}}>")


def _identity_bases(shape, order) -> Bases:
    """Offset bases of identityStandardND(shape, order), as tensor coordinates."""
    out = []
    for d in order:
        for i in range(log2(shape[d])):
            b = [0] * len(shape)
            b[d] = 1 << i
            out.append(tuple(b))
    return tuple(out)


def _first_appearance_order(bases: Bases, rank: int) -> list[int]:
    """Dims in order of each basis's first non-zero component, then the rest from rank-1 down."""
    order: list[int] = []
    for b in bases:
        k = next((k for k, c in enumerate(b) if c), None)
        if k is not None and k not in order:
            order.append(k)
    return order + [d for d in range(rank - 1, -1, -1) if d not in order]


def _padded_pair(p: _Parser) -> tuple[int, int]:
    tok = p.tok
    if tok.kind != "int":
        raise p.error(f"padded_shared: expected an interval such as 32:+4, got {tok.describe()}", tok.pos,
                      "intervals")
    p.advance()
    p.expect(":")
    p.expect("+")
    pad = p.tok
    if pad.kind != "int":
        raise p.error(f"padded_shared: expected a padding after '+', got {pad.describe()}", pad.pos, "paddings")
    p.advance()
    return tok.value, pad.value


@_family("ttg.padded_shared")
def _parse_padded_shared(p: _Parser, mnemonic: str) -> Encoding:
    """``<[I:+P, ...] {order = [...], shape = [...]}>`` (identity offsets) or ``{offset = ..., block = ...}``."""
    opener = p.expect("<")
    pairs = p.sequence("[", "]", lambda: _padded_pair(p))
    f = p.dictionary()
    p.expect(">", opener)
    f.kind = mnemonic
    if f.has("offset") or f.has("block"):
        offset, block = _linear_bases(p, f, ("offset", "block"))
    else:
        order, shape = f.integers("order"), f.integers("shape")
        if len(order) != len(shape):
            raise p.error(f"{mnemonic}: 'order' and 'shape' have different ranks ({len(order)} and {len(shape)})",
                          f.entries["order"][1], "order")
        if sorted(order) != list(range(len(order))):
            raise p.error(f"{mnemonic}: 'order' must be a permutation of 0..{len(order) - 1}, got {list(order)}",
                          f.entries["order"][1], "order")
        if not all(is_power_of_two(s) for s in shape):
            raise p.error(f"{mnemonic}: every 'shape' entry must be a power of two, got {list(shape)}",
                          f.entries["shape"][1], "shape")
        offset, block = _identity_bases(shape, order), ()
    f.finish()
    from ..encodings.padded_shared import PaddedSharedEncoding
    return PaddedSharedEncoding(tuple(i for i, _ in pairs), tuple(q for _, q in pairs), offset, block)


@_printer("padded_shared")
def _print_padded_shared(e) -> str:
    pairs = ", ".join(f"{i}:+{q}" for i, q in zip(e.intervals, e.paddings))
    rank = _rank_of(e.offset_bases, e.block_bases)
    shape = [1] * rank
    for b in e.offset_bases:
        for k, c in enumerate(b):
            shape[k] = max(shape[k], 1 << max(c, 0).bit_length())
    order = _first_appearance_order(e.offset_bases, rank)
    if not e.block_bases and tuple(map(tuple, e.offset_bases)) == _identity_bases(shape, order):
        body = f"order = {_ints_text(order)}, shape = {_ints_text(shape)}"
    else:
        body = f"offset = {_bases_text(e.offset_bases)}, block = {_bases_text(e.block_bases)}"
    return f"#ttg.padded_shared<[{pairs}] {{{body}}}>"


@_family("ttg.shared_linear")
def _parse_shared_linear(p: _Parser, mnemonic: str) -> Encoding:
    """``<{offset = [...][, block = [...]]}, alignment = N>``."""
    from ..encodings.shared_linear import SharedLinearEncoding
    opener = p.expect("<")
    f = p.dictionary()
    f.kind = mnemonic
    if f.has("alignment"):
        raise p.error(f"{mnemonic}: 'alignment' goes after the closing '}}', not inside the bases",
                      f.entries["alignment"][1], "alignment")
    offset = f.bases("offset")
    block = f.bases("block", ())
    if not _rank_of(offset, block):
        raise p.error(f"{mnemonic}: an empty layout (no bases) is not supported", f.pos)
    f.finish()
    p.expect(",")
    p.expect_ident("alignment")
    p.expect("=")
    tok = p.tok
    if tok.kind != "int":
        raise p.error(f"{mnemonic}: 'alignment' must be an integer, got {tok.describe()}", tok.pos, "alignment")
    p.advance()
    p.expect(">", opener)
    return SharedLinearEncoding(offset, block, tok.value)


@_printer("shared_linear")
def _print_shared_linear(e) -> str:
    block = f", block = {_bases_text(e.block_bases)}" if e.block_bases else ""
    return f"#ttg.shared_linear<{{offset = {_bases_text(e.offset_bases)}{block}}}, alignment = {e.alignment()}>"


@_family("ttg.partitioned_shared")
def _parse_partitioned_shared(p: _Parser, mnemonic: str) -> Encoding:
    from ..encodings.partitioned_shared import PartitionedSharedEncoding
    f = _body(p, mnemonic)
    enc = PartitionedSharedEncoding(f.integer("numPartitions"), f.integer("numGroups"), f.integer("partitionDim"),
                                    f.encoding("partitionLayout"))
    f.finish()
    return enc


@_printer("partitioned_shared")
def _print_partitioned_shared(e) -> str:
    return (f"#ttg.partitioned_shared<{{numPartitions = {e.num_partitions}, numGroups = {e.num_groups}, "
            f"partitionDim = {e.partition_dim}, partitionLayout = {print_attribute(e.partition_layout)}}}>")


def _bare_body(p: _Parser, kind: str) -> _Fields:
    """``<entries>`` (MLIR's struct format without braces)."""
    fields = p.entries(p.expect("<"), ">")
    fields.kind = kind
    return fields


@_family("ttng.tensor_memory_encoding")
def _parse_tensor_memory(p: _Parser, mnemonic: str) -> Encoding:
    from ..encodings.tensor_memory import TensorMemoryEncoding
    f = _bare_body(p, mnemonic)
    enc = TensorMemoryEncoding(f.integer("blockM"), f.integer("blockN"), f.integer("colStride"), f.cga(2),
                               f.boolean("twoCTAs", False))
    f.finish()
    return enc


@_printer("tensor_memory_encoding")
def _print_tensor_memory(e) -> str:
    two = ", twoCTAs = true" if e.two_ctas else ""
    return (f"#ttng.tensor_memory_encoding<blockM = {e.block_m}, blockN = {e.block_n}, "
            f"colStride = {e.col_stride}{_cga_text(e.cga_layout)}{two}>")


@_family("ttng.tensor_memory_scales_encoding")
def _parse_tensor_memory_scales(p: _Parser, mnemonic: str) -> Encoding:
    from ..encodings.tensor_memory import TensorMemoryScalesEncoding
    f = _bare_body(p, mnemonic)
    enc = TensorMemoryScalesEncoding(f.cga(2))
    f.finish()
    return enc


@_printer("tensor_memory_scales_encoding")
def _print_tensor_memory_scales(e) -> str:
    return f"#ttng.tensor_memory_scales_encoding<{_cga_text(e.cga_layout)[2:]}>"


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
    p = _Parser(text, aliases, lenient=lenient, tokens=_lex_all(text))
    if p.tok.kind == "end":
        raise ParseError("empty attribute text")
    enc = p.attribute()
    if p.tok.kind != "end":
        raise p.error(f"unexpected {p.tok.describe()} after the attribute", p.tok.pos)
    if len(_INTERNED) >= INTERN_LIMIT:
        del _INTERNED[next(iter(_INTERNED))]
    _INTERNED[key] = (enc, tuple(p.alias_refs))
    return enc


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
    """Forget every interned parse (benchmarks measuring a cold parse)."""
    _INTERNED.clear()


def print_attribute(encoding: Encoding) -> str:
    """Triton's canonical text for an encoding (parents inline, no aliases)."""
    printer = _PRINTERS.get(getattr(encoding, "kind", None))
    if printer is None:
        raise ParseError(f"no attribute syntax for {type(encoding).__name__}")
    return printer(encoding)


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
        p = _Parser(text, table, line_start)
        p.multiline = True
        if _alias_header(p, line_end, table):
            name = p.advance().text
            p.advance()
            try:
                table[name] = p.attribute()
            except ParseError as e:
                raise ParseError(f"alias #{name}: {e.message}", field=e.field,
                                 line=text.count("\n", 0, line_start) + 1) from None
            line_end = text.find("\n", p.pos)
            line_end = len(text) if line_end < 0 else line_end
        line_start = line_end + 1
    return table


def _alias_header(p: _Parser, line_end: int, table: Mapping[str, Encoding]) -> bool:
    """Whether the line at p starts ``#name = #<layout attribute or known alias>`` (leaves p at ``#name``)."""
    text, i = p.text, p.pos
    while i < line_end and text[i] in " \t":
        i += 1
    if not text.startswith("#", i):
        return False
    probe = _Parser(text, None, i)
    try:
        name, eq, value = probe.advance(), probe.advance(), probe.tok
    except ParseError:
        return False
    if name.kind != "hash" or eq.text != "=" or value.kind != "hash" or value.pos >= line_end:
        return False
    p.pos = i
    return _defines_layout(value.text) or value.text in table


def _defines_layout(name: str) -> bool:
    dialect, dot, mnemonic = name.partition(".")
    return bool(dot) and dialect in _DIALECTS and f"{_DIALECTS[dialect]}.{mnemonic}" not in _MEMORY_SPACES


__all__ = ["parse_attribute", "print_attribute", "parse_alias_definitions", "is_permutation_matrix"]
