"""checker/limits.py: every limit refused in one line that names the field and the value, before a reader, an
enumeration or an engine sees it: shapes (text and lists), integers, byte counts, nesting, file text."""

import numpy as np
import pytest

from checker.errors import CheckerError, ParseError
from checker.limits import (
    MAX_BYTES,
    MAX_ELEMENTS,
    MAX_NESTING,
    MAX_RANK,
    byte_count,
    check_characters,
    check_depth,
    clip,
    decode,
    depth,
    describe,
    integer,
    parse_shape_text,
    printable,
    read_text,
    shape,
)

NOT_A_SHAPE = "is not of the form 16x16 (ASCII digits 0-9 and 'x')"


@pytest.mark.parametrize("text, shape_", [("128x64", (128, 64)), ("128X64", (128, 64)), ("16", (16,)),
                                          ("1x1x1x1", (1, 1, 1, 1))])
def test_parse_shape_text(text, shape_):
    assert parse_shape_text(text, "--shape") == shape_


@pytest.mark.parametrize("text, message", [
    ("１６x16", f"shape '１６x16' {NOT_A_SHAPE}"),                     # full-width digits are no number
    ("1_6x16", f"shape '1_6x16' {NOT_A_SHAPE}"),
    ("+16", f"shape '+16' {NOT_A_SHAPE}"),
    ("16 x 16", f"shape '16 x 16' {NOT_A_SHAPE}"),
    ("16x", f"shape '16x' {NOT_A_SHAPE}"),
    ("", f"shape '' {NOT_A_SHAPE}"),
    ("0x16", "a shape lists positive integers, got [0, 16]"),
    ("65536x65536", "shape 65536x65536 has 4294967296 elements; the limit is 2^31 = 2147483648 (Triton's "
                    "LinearLayout sizes are 32-bit)"),
    ("x".join(["2"] * 17), "a shape has 1 to 16 dimensions, got 17"),
])
def test_parse_shape_text_messages(text, message):
    with pytest.raises(CheckerError) as e:
        parse_shape_text(text, "--shape")
    assert str(e.value) == f"field '--shape': {message}"
    with pytest.raises(ParseError):                                           # the error class is the caller's
        parse_shape_text(text, "--shape", error=ParseError)


def test_shape_lists():
    assert shape([64, 64]) == (64, 64) and shape((8,)) == (8,)
    assert shape(np.array([4, 4])) == (4, 4) and shape(d for d in [2, 2]) == (2, 2)
    assert shape([np.int64(2), 32]) == (2, 32)
    assert shape([MAX_ELEMENTS]) == (MAX_ELEMENTS,) and shape([2] * MAX_RANK) == (2,) * MAX_RANK
    for value, message in [
            ("64x64", "a shape is a list of positive integers such as [64, 64], got str 64x64"),
            ({"a": 1}, "a shape is a list of positive integers such as [64, 64], got dict {'a': 1}"),
            (64, "a shape is a list of positive integers such as [64, 64], got int 64"),
            ([], "a shape has 1 to 16 dimensions, got 0"),
            ([64, True], "a shape lists positive integers, got the boolean True in [64, True]"),
            ([64, 2.0], "a shape lists positive integers, got the float 2.0 in [64, 2.0]"),
            ([64, -1], "a shape lists positive integers, got [64, -1]"),
            ([MAX_ELEMENTS, 2], "shape 2147483648x2 has 4294967296 elements; the limit is 2^31 = 2147483648 "
                                "(Triton's LinearLayout sizes are 32-bit)")]:
        with pytest.raises(CheckerError) as e:
            shape(value, "shape")
        assert str(e.value) == f"field 'shape': {message}"


def test_integers_and_byte_counts():
    assert integer(7, "n") == 7 and integer(np.int64(7), "n") == 7 and type(integer(np.int64(7), "n")) is int
    for value, bounds, message in [(True, {}, "must be an integer, got the boolean True"),
                                   (64.0, {}, "must be an integer, got the float 64.0"),
                                   ("3", {}, "must be an integer, got str 3"),
                                   (None, {}, "must be an integer, got None"),
                                   (5, {"low": 8}, "must be an integer >= 8, got 5"),
                                   (9, {"high": 8}, "must be an integer <= 8 (the limit), got 9"),
                                   (1 << 100, {"high": 8}, "must be an integer <= 8 (the limit), got 2^100")]:
        with pytest.raises(CheckerError) as e:
            integer(value, "n", **bounds)
        assert str(e.value) == f"field 'n': {message}"
    assert byte_count(MAX_BYTES, "capacity") == MAX_BYTES and byte_count(0, "base") == 0
    with pytest.raises(CheckerError) as e:
        byte_count(MAX_BYTES + 1, "capacity")
    assert str(e.value) == "field 'capacity': must be a number of bytes <= 4294967296 (the limit), got 4294967297"
    with pytest.raises(CheckerError) as e:
        byte_count(0, "alignment", low=1)
    assert str(e.value) == "field 'alignment': must be a number of bytes >= 1, got 0"


def test_depth_and_check_depth():
    assert [depth(v) for v in (3, [], [[[]]], {"a": [1, {"b": 2}]}, ([1], (2,)))] == [0, 1, 3, 3, 2]
    loop = []
    loop.append(loop)
    assert depth(loop) == 2                                       # a cycle is walked once
    deep = []
    for _ in range(MAX_NESTING + 10):
        deep = [deep]
    assert depth(deep) == MAX_NESTING + 1                         # stops once past the limit
    check_depth([[1]], "x")
    with pytest.raises(CheckerError) as e:
        check_depth(deep, "encodings.a", what="the declaration")
    assert str(e.value) == "field 'encodings.a': the declaration nests more than 64 levels deep (the limit)"


def test_describe_clip_and_printable():
    assert [describe(v) for v in (None, True, 1.5, "abc", [1, 2])] == [
        "None", "the boolean True", "the float 1.5", "str abc", "list [1, 2]"]
    assert clip("a" * 100) == "a" * 57 + "..." and clip("a\n  b") == "a b" and clip("a" * 60) == "a" * 60
    assert clip(1 << 80) == "2^80" and clip((1 << 80) + 1) == "an integer of 81 bits" and clip(1 << 20) == "1048576"
    assert [printable(c) for c in ("x", "\x07", "\u00b2", "\u0663", "é")] == [
        "'x'", "U+0007", "'²' (U+00B2): numbers are written in ASCII digits 0-9",
        "'٣' (U+0663): numbers are written in ASCII digits 0-9", "'é' (U+00E9)"]


def test_file_text_is_utf8_without_control_characters(tmp_path):
    assert decode(b"\xef\xbb\xbfhi\r\n\tthere", "f") == "hi\r\n\tthere"           # BOM dropped; tab, CR, LF kept
    for data, message in [
            (b"\xff\xfeh\x00", "f.yaml:1: the file is UTF-16 (it starts with a byte-order mark); save it as UTF-8"),
            (b"ok\n\nbad \xe9 here", "f.yaml:3: the file is not UTF-8 text (byte 0xe9 at offset 8); save it as UTF-8"),
            (b"a\nb\x00", "f.yaml:2: a NUL byte is not allowed in text input (is this a binary or UTF-16 file?)"),
            (b"a\xc2\x85b", "f.yaml:1: the control character U+0085 is not allowed in text input (is this a binary "
                            "or UTF-16 file?)")]:
        with pytest.raises(ParseError) as e:
            decode(data, "f.yaml")
        assert str(e.value) == message
    with pytest.raises(ParseError) as e:
        check_characters("a\u2028b")
    assert str(e.value) == ("field 'text': the control character U+2028 is not allowed in text input (is this a "
                            "binary or UTF-16 file?)")
    with pytest.raises(ParseError) as e:
        check_characters(5)
    assert str(e.value) == "field 'text': expected text, got int"
    path = tmp_path / "s.yaml"
    path.write_bytes("version: 1 # é\n".encode())
    assert read_text(str(path)) == "version: 1 # é\n"
    with pytest.raises(ParseError) as e:
        read_text(str(tmp_path / "none.yaml"), field="include[0]")
    assert str(e.value) == f"{tmp_path}/none.yaml: field 'include[0]': cannot read the file: No such file or directory"


def test_a_misspelt_key_or_family_gets_did_you_mean():
    """Issue 27, the first hour: typos in an encoding are named with the closest right spelling."""
    import checker
    from checker.errors import CheckerError
    from checker.limits import did_you_mean
    assert did_you_mean("sizePerThred", ["size_per_thread", "order"]) == " (did you mean 'size_per_thread'?)"
    assert did_you_mean("blockd", ["blocked", "slice"]) == " (did you mean 'blocked'?)"
    assert did_you_mean("zzz", ["blocked", "slice"]) == "" and did_you_mean(3, ["a"]) == ""
    base = {"size_per_thread": [1], "threads_per_warp": [32], "warps_per_cta": [4], "order": [0]}
    with pytest.raises(CheckerError, match=r"field 'sizePerThred': unknown key \(did you mean 'size_per_thread'\?\)"):
        checker.parse_encoding({"kind": "blocked", "sizePerThred": [1], **{k: v for k, v in base.items()
                                                                           if k != "size_per_thread"}})
    with pytest.raises(CheckerError, match=r"got 'blockd' \(did you mean 'blocked'\?\)$"):
        checker.parse_encoding({"kind": "blockd", **base})
    with pytest.raises(CheckerError, match=r"unknown encoding '#ttg.blockd' \(did you mean '#ttg.blocked'\?\)"):
        checker.parse_encoding("#ttg.blockd<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
                               "order = [0]}>")
    with pytest.raises(CheckerError, match=r"missing key 'sizePerThread' \(is 'sizePerThred' a misspelling of it\?\)"):
        checker.parse_encoding("#ttg.blocked<{sizePerThred = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
                               "order = [0]}>")
