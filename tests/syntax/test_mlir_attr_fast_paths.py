"""The parser's fast paths (every token lexed up front, the regex lexer, the interning cache) give exactly
what the lazy character-by-character path gives: the same encoding or the same error message."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.errors import CheckerError
from checker.syntax import mlir_attr
from checker.syntax.mlir_attr import _lex_all, _Parser, parse_attribute, print_attribute

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
]
ALIASES = {"mma": parse_attribute("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
                                  "instrShape = [16, 8]}>")}


def lazy(text, aliases=None, lenient=False):
    """parse_attribute's logic on the lazy lexer, no cache."""
    try:
        p = _Parser(text, aliases, lenient=lenient)
        if p.tok.kind == "end":
            return "empty"
        enc = p.attribute()
        if p.tok.kind != "end":
            raise p.error(f"unexpected {p.tok.describe()} after the attribute", p.tok.pos)
        return enc
    except CheckerError as e:
        return (type(e).__name__, str(e), e.field)


def fast(text, aliases=None, lenient=False):
    mlir_attr.clear_parse_cache()
    try:
        return parse_attribute(text, aliases, lenient=lenient)
    except CheckerError as e:
        return "empty" if str(e) == "empty attribute text" else (type(e).__name__, str(e), e.field)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(("delete", "insert", "replace")))
        ch = draw(st.sampled_from(list("#<>{}[]=,:+-_$. \n\t/x09é\u00a0\x1c") + ["//c\n", "true", "-7"]))
        if op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "insert":
            text = text[:i] + ch + text[i:]
        else:
            text = text[:i] + ch + text[i + 1:]
    return text


@given(mutated(), st.booleans())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_fast_parse_equals_lazy_parse(text, lenient):
    assert fast(text, ALIASES, lenient) == lazy(text, ALIASES, lenient)


@given(mutated())
@settings(max_examples=300, deadline=None)
def test_lex_all_equals_lazy_tokens(text):
    toks = _lex_all(text)
    if toks is None:
        return
    p = _Parser(text, None)
    for t in toks:
        assert p.advance() == t


def test_interned_parse_is_one_value():
    text = TEXTS[0]
    assert parse_attribute(text) is parse_attribute(text)
    assert print_attribute(parse_attribute(text)) == print_attribute(lazy(text))


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
