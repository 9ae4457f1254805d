"""The reader's fast paths give exactly what MLIR's character-by-character lexer gives: the one regular
expression's tokens (a list of integers, or of such lists, is one token) are that lexer's tokens at the same
places, its first error is the same error at the same place; lists read as one token nest as lists do; the
interning cache serves the value a cold parse gives."""

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.encodings.base import Encoding
from checker.errors import CheckerError
from checker.limits import INT_MAX, INT_MIN, MAX_NESTING, clip, printable
from checker.syntax import mlir_attr
from checker.syntax.mlir_attr import _END, _Parser, parse_attribute, print_attribute

TEXTS = [
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], "
    "CGALayout = [[0, 1]]}>",
    "#ttg.slice<{dim = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>}>",
    "#ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>",
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
    "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>",
    "#ttg.linear<{register = [[0, 1]], lane = [[1, 0], [2, 0]], warp = [], block = []}>",
    "#ttg.shared_linear<{offset = [[0, 1], [1, 0]], block = []}, alignment = 16>",
    "#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = [[0, 1], [1, 0]]}}>",
]
ALIASES = {"mma": parse_attribute("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
                                  "instrShape = [16, 8]}>")}

_SPACES = " \t\n\r\f\v\x1c\x1d\x1e\x1f"       # what str.isspace holds for in ASCII
_LETTERS = set(string.ascii_letters + "_")
_DIGITS = set(string.digits)
_NAME = _LETTERS | _DIGITS | set("$.")


def reference_tokens(text: str):
    """MLIR's lexer, one character at a time: [(token, position)] up to the first character that starts no
    token, and (message, position) of that one (or None)."""
    out, i = [], 0
    while True:
        while i < len(text) and (text[i] in _SPACES or text.startswith("//", i)):
            if text[i] == "/":                      # a comment runs to the end of its line
                i = text.find("\n", i)
                i = len(text) if i < 0 else i
            else:
                i += 1
        if i >= len(text):
            return out, None
        ch, start = text[i], i
        if ch == "#" or ch in _LETTERS:
            i += ch == "#"
            if i >= len(text) or text[i] not in _LETTERS:
                return out, ("'#' must be followed by an encoding or alias name", start)
            while i < len(text) and text[i] in _NAME:
                i += 1
        elif ch in _DIGITS or ch == "-" and i + 1 < len(text) and text[i + 1] in _DIGITS:
            i += 1
            while i < len(text) and text[i] in _NAME:
                i += 1
            word = text[start:i]
            digits = word.lstrip("-")
            if not all(c in _DIGITS for c in digits):
                return out, (f"'{clip(word, 40)}' is not an integer", start)
            if len(digits) > 10 or not INT_MIN <= int(word) <= INT_MAX:
                return out, (f"the integer {clip(word, 24)} is out of range: attribute integers are 32-bit "
                             f"(-2^31 to 2^31 - 1, the limit)", start)
        elif ch in "<>{}[]=,:+":
            i += 1
        else:
            return out, (f"unexpected character {printable(ch)}", start)
        out.append((text[start:i], start))


def reader_tokens(text: str):
    """The reader's tokens in the reference's terms: a list token spelled out as the tokens it stands for."""
    p = _Parser(text, None)
    out = []
    for k, t in enumerate(p.toks):
        if k == p.bad or t == _END:
            break
        if t[0] == "[" and len(t) > 1:
            out += [(s, p.pos(k) + q) for s, q in reference_tokens(t)[0]]
        else:
            out.append((t, p.pos(k)))
    return out, (p.why, p.pos(p.bad)) if p.bad >= 0 else None


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(("delete", "insert", "replace")))
        ch = draw(st.sampled_from(list("#<>{}[]=,:+-_$. \n\t/x09é\u00a0\x1c") +
                                  ["//c\n", "true", "-7", "1234567890", "99999999999", "[[1]]", "[ 2 ,3 ]"]))
        if op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "insert":
            text = text[:i] + ch + text[i:]
        else:
            text = text[:i] + ch + text[i + 1:]
    return text


@given(mutated())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_tokens_are_the_character_lexers(text):
    ref, ref_error = reference_tokens(text)
    got, error = reader_tokens(text)
    assert got == ref
    assert error == ref_error


def outcome(text, aliases=None, lenient=False):
    try:
        return parse_attribute(text, aliases, lenient=lenient)
    except CheckerError as e:
        return (type(e).__name__, str(e), e.field)


@given(mutated(), st.booleans())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_interned_parse_equals_cold_parse(text, lenient):
    mlir_attr.clear_parse_cache()
    cold = outcome(text, ALIASES, lenient)
    assert outcome(text, ALIASES, lenient) == cold


def _blocked_at_depth(slices: int, size_per_thread: str) -> str:
    """A blocked layout under `slices` slices: its sizePerThread list opens at nesting depth 2 * slices + 3."""
    blocked = (f"#ttg.blocked<{{sizePerThread = {size_per_thread}, threadsPerWarp = [32], warpsPerCTA = [4], "
               f"order = [0]}}>")
    return "#ttg.slice<{dim = 0, parent = " * slices + blocked + "}>" * slices


def test_a_list_token_nests_as_a_list():
    """A list written as one token is refused past the nesting limit exactly where the same list written
    token by token (a 10-digit integer keeps it from being one token) is."""
    over = (MAX_NESTING - 3) // 2 + 1               # slices that put the list one level past the limit
    for one, spelled in (("[1]", "[1000000000]"), ("[ 1 ]", "[ 1000000000 ]"), ("[[1]]", "[[1000000000]]"),
                         ("[[[1]]]", "[[[1000000000]]]")):
        for slices in (over - 1, over):
            got, want = outcome(_blocked_at_depth(slices, one)), outcome(_blocked_at_depth(slices, spelled))
            refused = slices == over or one == "[[[1]]]"
            assert got == want or isinstance(got, Encoding) and isinstance(want, Encoding), (one, slices)
            assert (f"nests more than {MAX_NESTING} levels deep" in str(got)) == refused, (one, slices)


def test_interned_parse_is_one_value():
    text = TEXTS[0]
    assert parse_attribute(text) is parse_attribute(text)
    mlir_attr.clear_parse_cache()
    assert print_attribute(parse_attribute(text)) == text


def test_interning_keys_on_the_aliases_read():
    text = "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>"
    other = {"mma": parse_attribute(TEXTS[3])}
    a = parse_attribute(text, ALIASES)
    b = parse_attribute(text, other)
    assert a.parent == ALIASES["mma"] and b.parent == other["mma"]
    assert parse_attribute(text, {"#mma": other["mma"]}).parent == other["mma"]
    try:
        parse_attribute(text)
    except CheckerError as e:
        assert "unknown alias '#mma'" in str(e)
    else:
        raise AssertionError("an alias missing now must not be served from the cache")


def test_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(mlir_attr, "INTERN_LIMIT", 4)
    mlir_attr.clear_parse_cache()
    for v in (1, 2, 4, 8, 16, 32):
        parse_attribute(f"#ttg.swizzled_shared<{{vec = {v}, perPhase = 1, maxPhase = 1, order = [1, 0]}}>")
    assert len(mlir_attr._INTERNED) <= 4
