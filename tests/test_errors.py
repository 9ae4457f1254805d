"""checker/errors.py: every user-facing error is one line that says where (file:line, argument, field) and what,
location details filled in from the inside out, and `names_argument` naming an API parameter."""

import pytest

from checker.errors import (
    MAX_MESSAGE,
    CheckerError,
    EncodingError,
    InternalError,
    LayoutError,
    NotModelled,
    ParseError,
    names_argument,
    one_line,
)


@pytest.mark.parametrize("where, text", [
    ({}, "must be a power of two"),
    ({"file": "a.yaml"}, "a.yaml: must be a power of two"),
    ({"file": "a.yaml", "line": 12}, "a.yaml:12: must be a power of two"),
    ({"file": "a.yaml", "line": 12, "field": "warps_per_cta"},
     "a.yaml:12: field 'warps_per_cta': must be a power of two"),
    ({"line": 12}, "must be a power of two"),                                  # a line alone says nothing
    ({"field": "shape"}, "field 'shape': must be a power of two"),
    ({"argument": "--shape"}, "argument --shape: must be a power of two"),
    ({"argument": "--shape", "field": "--shape"}, "argument --shape: must be a power of two"),   # said once
    ({"argument": "encoding", "field": "order"}, "argument encoding: field 'order': must be a power of two"),
    ({"file": "a.yaml", "argument": "encoding"}, "a.yaml: must be a power of two"),   # the file wins
])
def test_rendered_location(where, text):
    e = CheckerError("must be a power of two", **where)
    assert str(e) == text
    assert e.has_location == bool(where.get("file") or where.get("argument") or where.get("field"))


def test_located_fills_only_what_is_missing():
    e = CheckerError("bad", field="vec")
    assert e.located(file="a.yaml", line=3, field="encodings.x") is e            # in place, for `raise e.located()`
    assert (e.file, e.line, e.field, e.argument) == ("a.yaml", 3, "vec", None)    # the innermost field wins
    e.located(file="b.yaml", line=9, argument="--spec")
    assert str(e) == "a.yaml:3: field 'vec': bad" and e.argument == "--spec"
    assert e.message == "bad" and e.args == ("bad",)


def test_one_line_folds_control_characters_and_cuts_the_middle():
    assert one_line("a\nb\r\n\tc\x00d\u2028e  ") == "a b c d e"
    long = "a.yaml:1: " + "x" * 400 + " got [6, 4]"
    cut = one_line(long)
    assert len(cut) <= MAX_MESSAGE and cut.startswith("a.yaml:1: xxx") and cut.endswith("xxx got [6, 4]")
    assert " ... " in cut
    assert one_line("y" * 30, limit=20) == "y" * 10 + " ... " + "y" * 5
    assert one_line("z" * 20, limit=20) == "z" * 20
    assert str(CheckerError("first line\nsecond line", file="f")) == "f: first line second line"
    assert len(str(CheckerError("w" * 1000, file="spec.yaml", line=4))) <= MAX_MESSAGE


def test_the_family():
    for cls in (EncodingError, NotModelled, ParseError, LayoutError):
        assert issubclass(cls, CheckerError)
    assert issubclass(NotModelled, EncodingError)
    assert not issubclass(InternalError, CheckerError)        # a bug is never reported as bad input


def test_names_argument_names_the_parameter_an_error_came_from():
    @names_argument("layout", params=("shape",), replaces=("encoding",))
    def build(kind, **kw):
        raise CheckerError("bad", **kw)

    assert build.__name__ == "build"
    cases = [({}, "argument layout: bad"),
             ({"field": "shape"}, "argument shape: bad"),
             ({"field": "order"}, "argument layout: field 'order': bad"),
             ({"argument": "encoding"}, "argument layout: bad"),             # replaced by this function's name
             ({"argument": "text"}, "argument text: bad"),                   # kept
             ({"file": "a.yaml", "line": 2}, "a.yaml:2: bad")]                # a file says where already
    for where, text in cases:
        with pytest.raises(CheckerError) as e:
            build("blocked", **where)
        assert str(e.value) == text

    @names_argument("layout")
    def fine(x):
        return x + 1

    assert fine(1) == 2
    with pytest.raises(ValueError):
        names_argument("layout")(lambda: int("x"))()                          # other errors pass untouched
