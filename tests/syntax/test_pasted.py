"""checker.syntax.pasted.read_pasted: what a Triton user pastes (attribute, alias line, tensor / memdesc /
tensordesc type, after alias lines) read as one layout with the shape and element type of its type. The
command line's use of it (lower, show, prove, smt; exit codes, messages): tests/test_cli_paste.py."""

import json
import pathlib

import pytest

import checker
from checker.errors import CheckerError, ParseError
from checker.syntax.mlir_attr import parse_attribute
from checker.syntax.pasted import Pasted, read_pasted

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "tests/conformance/lowering.jsonl"


def test_every_triton_type_of_the_fixtures_reads_as_its_attribute_and_shape():
    """Triton's printed type of each lowering fixture: the encoding of its printed attribute, at its shape."""
    read = 0
    for line in CONFORMANCE.read_text().splitlines():
        c = json.loads(line)
        if "mlir_type" not in c or c.get("error") and c["family"] != "padded_shared":
            continue            # (Triton itself fails on the rest: ranks that do not match, ...)
        try:
            enc = parse_attribute(c["mlir_attr"])
        except Exception:
            continue
        got = read_pasted(c["mlir_type"] + ' loc("t.py":1:1)')
        assert (got.encoding, list(got.shape)) == (enc, c["shape"]), c["id"]
        assert got.element_bits == c["element_bitwidth"], c["id"]
        read += 1
    assert read > 900


BLOCKED = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [1, 0]}>"
SHARED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
ALIASES = f"#blocked = {BLOCKED}\n#shared = {SHARED}\n#smem = #ttg.shared_memory\n#loc3 = loc(\"k.py\":12:8)\n"


@pytest.mark.parametrize("text, want, layout", [
    (BLOCKED, ("attribute", None, None, None), BLOCKED),
    (f"#blocked = {BLOCKED}", ("alias", None, None, None), BLOCKED),
    (ALIASES + "#shared", ("alias", None, None, None), SHARED),
    (f"tensor<16x32xbf16, {BLOCKED}> loc(#loc3)", ("tensor", (16, 32), "bf16", 16), BLOCKED),
    (ALIASES + "tensor<16x32xi8, #blocked> loc(#loc3)", ("tensor", (16, 32), "i8", 8), BLOCKED),
    # a multi-buffered allocation with a rank-2 encoding: its trailing dims
    (ALIASES + "!ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>", ("memdesc", (64, 64), "f16", 16), SHARED),
    (f"!tt.tensordesc<tensor<64x32xf32, {SHARED}>>", ("tensordesc", (64, 32), "f32", 32), SHARED),
])
def test_each_form_gives_its_layout_shape_and_element_type(text, want, layout):
    got = read_pasted(text)
    assert (got.form, got.shape, got.element_type, got.element_bits) == want
    assert got.encoding == parse_attribute(layout)


def test_what_is_not_one_layout_is_a_parse_error():
    for text, message in ((1, "expected text, got int"),
                          ("  // only a comment\n", "empty layout text: give attribute text such as"),
                          (ALIASES, "the text defines 2 layouts (#blocked, #shared): add a last line naming the one "
                                    "to use, e.g. '#blocked'"),
                          ("#loc3 = loc(\"k.py\":12:8)", "a location, not a layout"),
                          ("!ttg.async.token", "is not a tensor<...>, !ttg.memdesc<...> or !tt.tensordesc<...> type")):
        with pytest.raises(ParseError) as e:
            read_pasted(text)
        assert message in e.value.message, (text, e.value.message)


# ---------------------------------------------------------------- the plain-attribute fast path (issue 29)

PLAIN_CASES = [
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
    "#triton_gpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>",
]


@pytest.mark.parametrize("text", PLAIN_CASES)
def test_a_plain_attribute_takes_the_fast_path_to_the_same_encoding(text):
    from checker.syntax.pasted import _subject, plain_encoding
    enc = plain_encoding(text)
    assert enc is not None and enc == _subject(text, None, {}, {}, {}).encoding
    assert read_pasted(text) == Pasted(enc, "attribute", text=text)


@pytest.mark.parametrize("text", [
    PLAIN_CASES[0] + " loc(#loc3)",                                 # a location: the general path strips it
    "#blocked = " + PLAIN_CASES[0],                                  # an alias line
    "// a comment\n" + PLAIN_CASES[0],
    "tensor<64x64xf16, " + PLAIN_CASES[0] + ">",
    " " + PLAIN_CASES[0],
    "#ttg.shared_memory",                                            # no layout: the general path says so
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8]}>",   # refused: the general path's message
])
def test_everything_else_takes_the_general_path(text):
    from checker.syntax.pasted import plain_encoding
    assert plain_encoding(text) is None


def test_errors_are_the_general_paths():
    with pytest.raises(CheckerError) as e:
        checker.parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8]}>")
    assert "warpsPerCTA" in str(e.value)
    with pytest.raises(CheckerError) as e:
        checker.parse_encoding("#ttg.shared_memory")
    assert str(e.value) == "argument spec: #ttg.shared_memory: a memory space, not a layout"
