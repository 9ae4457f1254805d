"""Issue 11: every class of bad input gets one clear line naming where, and exit 2 (docs/robustness.md).

Each test feeds one class (file encodings, depth, size, types, non-ASCII digits, messages) through the
command line or the API and asserts the whole message (or its location and reason), the exit code, and
that nothing reached an engine."""

import io
import math
import sys

import pytest

import checker
from checker import prove
from checker.cli import main
from checker.errors import MAX_MESSAGE, CheckerError, one_line
from checker.limits import MAX_ELEMENTS, MAX_INCLUDE_DEPTH, MAX_NESTING, MAX_SHOW_ELEMENTS, MAX_SWEEP_POINTS

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>"
BLOCKED_1D = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"
SPEC = f"""version: 1
hardware: sm90
encodings:
  b: {{attr: "{BLOCKED}"}}
checks:
  - id: c
    prove: surjective
    layout: b
    shape: [128, 1]
"""
ENCODINGS = f'version: 1\nencodings:\n  b: {{attr: "{BLOCKED}"}}\n'
PREFIX = "layoutcheck: error: "
SHARED = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"


def cli(capsys, *argv, stdin: bytes | None = None, monkeypatch=None):
    """Run the command; for exit 2, the one line of stderr without its prefix."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    if code == 2:
        assert err.count("\n") == 1 and err.startswith(PREFIX), err
        assert len(err) - len(PREFIX) - 1 <= MAX_MESSAGE, err
        return code, err[len(PREFIX):-1]
    return code, err


def verify(capsys, tmp_path, *paths):
    return cli(capsys, "verify", *paths, "--engine", "f2", "--jobs", "1", "--quiet", "--report-dir",
               tmp_path / "reports")


def api_error(fn, *args, **kwargs) -> CheckerError:
    with pytest.raises(CheckerError) as info:
        fn(*args, **kwargs)
    e = info.value
    assert "\n" not in str(e) and len(str(e)) <= MAX_MESSAGE and e.has_location, str(e)
    return e


# ---------------------------------------------------------------- encodings of files

NOT_TEXT = {
    "latin1": (SPEC.replace("id: c", "id: c  # café").encode("latin-1"),
               ":6: the file is not UTF-8 text (byte 0xe9 at offset "),
    "utf16_bom": (SPEC.encode("utf-16"), ":1: the file is UTF-16 (it starts with a byte-order mark); save it as UTF-8"),
    "utf16_no_bom": (SPEC.encode("utf-16-le"), ":1: a NUL byte is not allowed in text input"),
    "binary": (bytes(range(256)), ":2: the file is not UTF-8 text (byte 0x80 at offset 128)"),
    "nul": (SPEC.replace("id: c", "id: c\x00").encode(), ":6: a NUL byte is not allowed in text input"),
    "control": (SPEC.replace("id: c", "id: c\x1b[31m").encode(), ":6: the control character U+001B is not allowed"),
    "line_separator": (SPEC.replace("id: c", "id: c\u2028").encode(), ":6: the control character U+2028"),
}


@pytest.mark.parametrize("data,message", NOT_TEXT.values(), ids=NOT_TEXT)
def test_a_spec_that_is_not_utf8_text(capsys, tmp_path, data, message):
    (tmp_path / "s.yaml").write_bytes(data)
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert code == 2 and err.startswith(f"{tmp_path / 's.yaml'}{message}")


@pytest.mark.parametrize("data,message", NOT_TEXT.values(), ids=NOT_TEXT)
def test_an_included_or_named_encoding_file_that_is_not_utf8_text(capsys, tmp_path, data, message):
    (tmp_path / "e.yaml").write_bytes(data)
    (tmp_path / "s.yaml").write_text(SPEC.replace(f'encodings:\n  b: {{attr: "{BLOCKED}"}}\n', "include: [e.yaml]\n"))
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert code == 2 and err.startswith(f"{tmp_path / 'e.yaml'}{message}")          # the included file, not the spec
    code, err = cli(capsys, "lower", "--file", tmp_path / "e.yaml", "--name", "b", "--shape", "128x1")
    assert code == 2 and err.startswith(f"{tmp_path / 'e.yaml'}{message}")


@pytest.mark.parametrize("data,message", NOT_TEXT.values(), ids=NOT_TEXT)
def test_ttgir_and_alias_files_that_are_not_utf8_text(capsys, tmp_path, data, message):
    for name in ("k.ttgir", "aliases.mlir"):
        (tmp_path / name).write_bytes(data)
    code, err = verify(capsys, tmp_path, tmp_path / "k.ttgir")
    assert code == 2 and err.startswith(f"{tmp_path / 'k.ttgir'}{message}")
    code, err = cli(capsys, "show", "--file", tmp_path / "aliases.mlir", "--name", "b", "--shape", "128x1")
    assert code == 2 and err.startswith(f"{tmp_path / 'aliases.mlir'}{message}")


def test_stdin_that_is_not_utf8_text(capsys, monkeypatch):
    code, err = cli(capsys, "show", "-", "--shape", "128x1", stdin=BLOCKED.encode("utf-16"), monkeypatch=monkeypatch)
    assert (code, err) == (2, "<stdin>:1: the file is UTF-16 (it starts with a byte-order mark); save it as UTF-8")


def test_api_text_with_control_characters():
    e = api_error(checker.verify, "module {\n\x00\n}\n")
    assert str(e).startswith("<text>:2: a NUL byte is not allowed in text input")


# ---------------------------------------------------------------- depth

def test_attribute_text_nested_200_deep(capsys):
    text = "#ttg.slice<{dim = 0, parent = " * 200 + BLOCKED_1D + "}>" * 200
    code, err = cli(capsys, "show", text, "--shape", "16")
    assert code == 2 and err.startswith(f"argument encoding: the attribute nests more than {MAX_NESTING} levels "
                                        f"deep (the limit) (at column ")
    code, err = cli(capsys, "show", BLOCKED.replace("[1, 1]", "[" * 1000 + "]" * 1000, 1), "--shape", "16x16")
    assert code == 2 and "nests more than 64 levels deep (the limit)" in err


def test_yaml_nested_500_deep(capsys, tmp_path):
    (tmp_path / "s.yaml").write_text("version: 1\nchecks: " + "[" * 500 + "]" * 500 + "\n")
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert (code, err) == (2, f"{tmp_path / 's.yaml'}:2: invalid YAML: the YAML nests more than {MAX_NESTING} "
                              f"levels deep (the limit)")


def test_yaml_aliases_nested_past_the_limit(capsys, tmp_path):
    levels = "".join(f"a{i}: &a{i} [[[[[[[[[[*a{i - 1}]]]]]]]]]]\n" for i in range(1, 10))
    (tmp_path / "s.yaml").write_text("version: 1\na0: &a0 [1]\n" + levels)
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert code == 2 and "nests (aliases included) more than 64 levels deep (the limit)" in err


def test_include_chain_of_a_thousand_files(capsys, tmp_path):
    for i in range(1000):
        nxt = f"include: [e{i + 1}.yaml]\n" if i < 999 else ""
        (tmp_path / f"e{i}.yaml").write_text(f"version: 1\n{nxt}encodings:\n  n{i}: {{attr: \"{BLOCKED}\"}}\n")
    (tmp_path / "s.yaml").write_text(SPEC.replace(f'encodings:\n  b: {{attr: "{BLOCKED}"}}\n', "include: [e0.yaml]\n"))
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    last = tmp_path / f"e{MAX_INCLUDE_DEPTH - 1}.yaml"
    assert code == 2 and err.startswith(f"{last}:2: field 'include': includes nest more than {MAX_INCLUDE_DEPTH} "
                                        f"files deep (the limit): ")


def test_named_encodings_referring_to_each_other_deeper_than_the_limit(capsys, tmp_path):
    decls = "".join(f"  s{i}: {{kind: slice, dim: 0, parent: s{i - 1}}}\n" for i in range(199, 0, -1))
    (tmp_path / "e.yaml").write_text(f"version: 1\nencodings:\n{decls}  s0: {{attr: \"{BLOCKED}\"}}\n")
    code, err = cli(capsys, "lower", "--file", tmp_path / "e.yaml", "--name", "s199", "--shape", "16")
    assert code == 2 and f"refer to each other more than {MAX_NESTING} deep (the limit)" in err
    assert err.startswith(f"{tmp_path / 'e.yaml'}:")


@pytest.mark.parametrize("kind", ["gluon", "yaml"])
def test_api_mappings_5000_deep(kind):
    if kind == "gluon":
        node = {"class": "BlockedLayout", "params": {"size_per_thread": [1], "threads_per_warp": [32],
                                                     "warps_per_cta": [4], "order": [0]}}
        for _ in range(5000):
            node = {"class": "SliceLayout", "params": {"dim": 0, "parent": node}}
    else:
        node = {"kind": "blocked", "size_per_thread": [1], "threads_per_warp": [32], "warps_per_cta": [4],
                "order": [0]}
        for _ in range(5000):
            node = {"kind": "slice", "dim": 0, "parent": node}
    e = api_error(checker.parse_encoding, node)
    assert f"nests more than {MAX_NESTING} levels deep (the limit)" in str(e)
    assert str(e).startswith("argument spec: ")


# ---------------------------------------------------------------- size

@pytest.mark.parametrize("shape", ["4294967296x1", "1048576x1048576"])
def test_show_of_a_huge_shape(capsys, shape):
    code, err = cli(capsys, "show", BLOCKED, "--shape", shape)
    n = math.prod(int(d) for d in shape.split("x"))
    assert (code, err) == (2, f"field '--shape': shape {shape} has {n} elements; the limit is 2^31 = {MAX_ELEMENTS} "
                              f"(Triton's LinearLayout sizes are 32-bit)")


def test_show_prints_at_most_2_to_the_20_cells(capsys):
    code, err = cli(capsys, "show", BLOCKED, "--shape", "2048x1024")
    assert (code, err) == (2, f"field '--shape': the layout has 2097152 elements; a view prints at most 2^20 = "
                              f"{MAX_SHOW_ELEMENTS} (the limit): give a smaller shape")
    mma = ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], "
           "instrShape = [1073741824, 8]}>")
    code, err = cli(capsys, "show", mma, "--shape", "16x16")            # a huge tile at a small shape
    assert code == 2 and "hardware indices" in err and "(the limit)" in err


def test_integers_of_attribute_text_are_32_bit(capsys):
    dot = ("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
           "warpsPerCTA = [1, 1], instrShape = [2147483648, 8]}>, kWidth = 2}>")
    code, err = cli(capsys, "show", dot, "--shape", "16x16")
    assert (code, err) == (2, "argument encoding: the integer 2147483648 is out of range: attribute integers are "
                              "32-bit (-2^31 to 2^31 - 1, the limit) (at column 123)")
    code, err = cli(capsys, "lower", BLOCKED.replace("[4, 1]", "[" + "9" * 5000 + ", 1]"), "--shape", "16x16")
    assert code == 2 and "is out of range" in err


def test_a_sweep_of_6_4_million_points(capsys, tmp_path):
    values = ", ".join(["4"] * 80)
    (tmp_path / "s.yaml").write_text(SPEC + f"    sweep:\n      num_warps: [{values}]\n      shape: ["
                                     + ", ".join(["[128, 1]"] * 80) + "]\n      warps_per_cta: ["
                                     + ", ".join(["[4, 1]"] * 1000) + "]\n")
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert (code, err) == (2, f"{tmp_path / 's.yaml'}:10: field 'sweep': the sweep has 6400000 points; "
                              f"the limit is {MAX_SWEEP_POINTS} per check (split the check)")


def test_billion_laughs(capsys, tmp_path):
    lol = "x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    lol += "".join(f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))
    (tmp_path / "s.yaml").write_text("version: 1\n" + lol + "encodings: {}\nchecks: *a9\n")
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert code == 2 and err.startswith(f"{tmp_path / 's.yaml'}:")
    assert "expands (aliases included) to more than 200000 nodes (the limit)" in err
    (tmp_path / "r.yaml").write_text("version: 1\nencodings:\n  a: &x {kind: slice, dim: 0, parent: *x}\n")
    code, err = cli(capsys, "lower", "--file", tmp_path / "r.yaml", "--name", "a", "--shape", "16")
    assert (code, err) == (2, f"{tmp_path / 'r.yaml'}:3: invalid YAML: an alias refers to the collection it is in")


def test_prove_fits_with_huge_shapes_and_capacities(capsys, tmp_path):
    shared = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    code, err = cli(capsys, "prove", "fits", shared, "--shape", f"{2 ** 62}x1", "--dtype-bits", "16")
    assert code == 2 and err.startswith("field '--shape': shape 4611686018427387904x1 has ")
    code, err = cli(capsys, "prove", "fits", shared, "--shape", "64x64", "--dtype-bits", str(2 ** 40))
    assert code == 2 and err.startswith("field '--dtype-bits': must be a number of bits from 1 to 1024 (the limit)")
    enc = checker.parse_encoding(shared)
    e = api_error(prove.fits, enc, 16, 2 ** 70, shape=[64, 64], engine="both")
    assert str(e) == "field 'capacity_bytes': must be an integer from 0 to 4294967296 (the limit), got 2^70"
    e = api_error(prove.fits, enc, 16, 2 ** 16, shape=[2 ** 62, 1], engine="both")
    assert str(e).startswith("argument shape: shape 4611686018427387904x1 has")
    (tmp_path / "s.yaml").write_text(SPEC.replace("prove: surjective", "prove: fits").replace(
        "shape: [128, 1]", f"shape: [128, 1]\n    dtype: f16\n    capacity_bytes: {2 ** 70}").replace(
        "layout: b", f"layout: '{shared}'"))
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert code == 2 and "capacity_bytes" in err and "(the limit)" in err and err.startswith(str(tmp_path))


def test_custom_hardware_with_huge_sizes(capsys, tmp_path):
    hw = ("{warp_size: 1099511627776, banks: 32, bank_bytes: 4, max_vector_bytes: 16, smem_bytes_per_block: 1024, "
          "phases: [{vector_bytes: 4, groups: ['0-31']}]}")
    (tmp_path / "s.yaml").write_text(SPEC.replace("hardware: sm90", f"hardware: {hw}"))
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert (code, err) == (2, f"{tmp_path / 's.yaml'}:2: field 'warp_size': must be at most 128 (the limit), "
                              f"got 1099511627776")


# ---------------------------------------------------------------- types

@pytest.mark.parametrize("value", [None, [4], "4", float("nan"), float("inf"), True, 4.0, 2 ** 40])
def test_gluon_integers_refuse_other_types(value):
    spec = {"class": "SwizzledSharedLayout", "params": {"vec": value, "per_phase": 1, "max_phase": 1, "order": [1, 0]}}
    e = api_error(checker.parse_encoding, spec)
    assert e.field == "vec" or (value is None and "missing parameter vec" in str(e)), str(e)
    assert str(e).startswith("argument spec: ")


@pytest.mark.parametrize("value", [[True, 4], [4.5, 1], "41", [[4], 1], {"a": 1}, [float("inf"), 1]])
def test_gluon_lists_refuse_other_types(value):
    spec = {"class": "BlockedLayout", "params": {"size_per_thread": [1, 1], "threads_per_warp": [32, 1],
                                                 "warps_per_cta": value, "order": [0, 1]}}
    e = api_error(checker.parse_encoding, spec)
    assert e.field in ("warps_per_cta", "params"), str(e)


def test_gluon_flags_are_booleans():
    spec = {"class": "AMDMFMALayout", "params": {"version": 3, "instr_shape": [32, 32, 8], "transposed": 1,
                                                 "warps_per_cta": [4, 1]}}
    assert str(api_error(checker.parse_encoding, spec)) == \
        "argument spec: field 'transposed': AMDMFMALayout: transposed must be True or False, got int 1"


@pytest.mark.parametrize("shape", [[64.5, 64], b"\x40\x40", {"a": 64}, [True, 64], "64x64", [64, None], [],
                                   [float("nan"), 64], [2 ** 62, 1], [0, 64], 64])
def test_lower_refuses_shapes_that_are_not_lists_of_positive_integers(shape):
    e = api_error(checker.lower, checker.parse_encoding(BLOCKED), shape)
    assert str(e).startswith("argument shape: "), str(e)


def test_lower_accepts_tuples_and_numpy_integers():
    np = pytest.importorskip("numpy")
    enc = checker.parse_encoding(BLOCKED)
    assert checker.lower(enc, (128, np.int64(1))) == checker.lower(enc, [128, 1])


YAML_TYPES = {
    "int_key": ("    sweep: {1: [2]}\n", ":10: invalid YAML: a mapping key must be text, got '1' (quote it)"),
    "bool_key": ("    sweep: {true: [2]}\n", ":10: invalid YAML: a mapping key must be text, got 'true' (quote it)"),
    "bool_sweep": ("    sweep: {warps_per_cta: [true]}\n",
                   ":10: field 'warps_per_cta': check 'c[warps_per_cta=true]': warps_per_cta must be a list of 32-bit "
                   "integers (or of such lists), got True"),
    "float_sweep": ("    sweep: {num_warps: [.inf]}\n", ":10: invalid YAML: '.inf' is not a finite number"),
    "not_a_list": ("    sweep: {num_warps: 4}\n", ":10: field 'num_warps': must be a list, got 4"),
}


@pytest.mark.parametrize("extra,message", YAML_TYPES.values(), ids=YAML_TYPES)
def test_spec_values_of_the_wrong_type(capsys, tmp_path, extra, message):
    (tmp_path / "s.yaml").write_text(SPEC + extra)
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert code == 2 and err.startswith(str(tmp_path / "s.yaml")), err
    assert err[len(str(tmp_path / "s.yaml")):].startswith(message.split(" got")[0]) or err.endswith(message), err


@pytest.mark.parametrize("old,new,message", [
    ("version: 1", "version: !!bool 1", ":1: invalid YAML: write booleans as true or false, got '1'"),
    ("version: 1", "version: yes", ":1: invalid YAML: write booleans as true or false, got 'yes'"),
    ("[128, 1]", "[0100, 1]", ":9: invalid YAML: write integers in decimal: '0100' (YAML 1.1 reads 0100 as 64"),
    ("[128, 1]", "[0x80, 1]", ":9: invalid YAML: write integers in decimal: '0x80'"),
    ("[128, 1]", "[1_28, 1]", ":9: invalid YAML: write integers in decimal: '1_28'"),
    ("[128, 1]", "[2:08, 1]", ":9: invalid YAML: write integers in decimal: '2:08'"),
    ("id: c", "id: 2024-01-01", ":6: invalid YAML: !!timestamp values are not accepted here"),
    ("id: c", "id: !!binary aGVsbG8=", ":6: invalid YAML: !!binary values are not accepted here"),
    ("id: c", "id: !!int x", ":6: invalid YAML: write integers in decimal: 'x'"),
])
def test_yaml_1_1_surprises_are_refused(capsys, tmp_path, old, new, message):
    (tmp_path / "s.yaml").write_text(SPEC.replace(old, new, 1))
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert code == 2 and err.startswith(f"{tmp_path / 's.yaml'}{message}"), err


def test_attribute_values_that_are_not_integers(capsys):
    shared = "#ttg.swizzled_shared<{vec = inf, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    code, err = cli(capsys, "show", shared, "--shape", "16x16")
    assert (code, err) == (2, "argument encoding: field 'vec': swizzled_shared: 'vec' must be an integer, got 'inf' "
                              "(at column 25)") or (code == 2 and err.startswith("argument encoding: "))


# ---------------------------------------------------------------- non-ASCII digits

@pytest.mark.parametrize("digit", ["²", "４", "٣", "१"])
def test_attribute_text_takes_ascii_digits_only(capsys, digit):
    code, err = cli(capsys, "show", BLOCKED.replace("[4, 1]", f"[{digit}, 1]"), "--shape", "128x1")
    assert code == 2 and err.startswith(f"argument encoding: unexpected character '{digit}' (U+")
    assert "numbers are written in ASCII digits 0-9" in err


@pytest.mark.parametrize("shape", ["1６x16", "１６x16", "1_6x16", "+16x16", " 16x16", "16x16\n", "16x²"])
def test_cli_shapes_take_ascii_digits_only(capsys, shape):
    code, err = cli(capsys, "show", BLOCKED, "--shape", shape)
    assert code == 2 and err.startswith("field '--shape': shape ") and "is not of the form 16x16 (ASCII" in err


def test_ttgir_types_and_yaml_shapes_take_ascii_digits_only(capsys, tmp_path):
    code, err = cli(capsys, "show", f"tensor<1６x16xf16, {BLOCKED}>")
    assert code == 2 and "dimension '1６' is not a static size (decimal digits 0-9)" in err
    (tmp_path / "s.yaml").write_text(SPEC.replace("[128, 1]", '"1２8x1"'))
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert code == 2 and err.startswith(f"{tmp_path / 's.yaml'}:9: field 'shape': ")


def test_explain_line_takes_ascii_digits_only(capsys, tmp_path):
    (tmp_path / "k.ttgir").write_text(EXPLAIN)
    code, err = verify(capsys, tmp_path, tmp_path / "k.ttgir", "--explain", "４")
    assert code == 2 and err.startswith("field '--explain': give a line number")


# ---------------------------------------------------------------- messages

def test_errors_render_on_one_line_of_at_most_300_characters():
    e = CheckerError("first\nsecond\r\nthird\x00" + "x" * 1000 + " got 'the end'", file="f.yaml", line=3, field="k")
    text = str(e)
    assert "\n" not in text and "\x00" not in text and len(text) <= MAX_MESSAGE
    assert text.startswith("f.yaml:3: field 'k': first second third") and text.endswith("x got 'the end'")
    assert one_line("a\nb") == "a b"


def test_a_rule_broken_in_an_included_file_names_that_file(capsys, tmp_path):
    bad = BLOCKED.replace("[32, 1]", "[6, 1]")
    (tmp_path / "e.yaml").write_text(f'version: 1\nencodings:\n  b: {{attr: "{bad}"}}\n')
    (tmp_path / "s.yaml").write_text(SPEC.replace(f'encodings:\n  b: {{attr: "{BLOCKED}"}}\n', "include: [e.yaml]\n"))
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert code == 2 and err.startswith(f"{tmp_path / 'e.yaml'}:3: field 'attr.threadsPerWarp': ")


def test_a_rule_broken_in_an_alias_file_names_that_file_and_line(capsys, tmp_path):
    bad = BLOCKED.replace("[32, 1]", "[6, 1]")
    (tmp_path / "a.mlir").write_text(f"// aliases\n#ok = {BLOCKED}\n#bad = {bad}\n")
    code, err = cli(capsys, "show", "--file", tmp_path / "a.mlir", "--name", "bad", "--shape", "128x1")
    assert code == 2 and err.startswith(f"{tmp_path / 'a.mlir'}:3: field 'threadsPerWarp': blocked: ")
    (tmp_path / "a.mlir").write_text(f"// aliases\n#ok = {BLOCKED}\n#bad = {BLOCKED[:-5]}\n")
    code, err = cli(capsys, "show", "--file", tmp_path / "a.mlir", "--name", "ok", "--shape", "128x1")
    assert code == 2 and err.startswith(f"{tmp_path / 'a.mlir'}:3: ")


def test_command_line_and_api_errors_name_their_argument(capsys):
    code, err = cli(capsys, "show", BLOCKED.replace("[32, 1]", "[6, 1]"), "--shape", "128x1")
    assert code == 2 and err.startswith("argument encoding: field 'threadsPerWarp': blocked: ")
    code, err = cli(capsys, "prove", "surjective", "#ttg.blocked<{", "--shape", "128x1")
    assert code == 2 and err.startswith("argument layouts: ")
    assert str(api_error(checker.parse_encoding, "#ttg.blocked<{")).startswith("argument spec: ")
    assert str(api_error(checker.lower, "#ttg.blocked<{", [16, 16])).startswith("argument encoding: ")
    R, S = checker.parse_encoding(BLOCKED), checker.parse_encoding(BLOCKED)
    e = api_error(prove.bank_conflict_free, R, S, [64, 64], "f16")       # S must be a shared layout
    assert str(e).startswith("field 'S': ")
    e = api_error(prove.bank_conflict_free, R, checker.parse_encoding(SHARED), [64, 64, 1], "f16")
    assert str(e).startswith("argument shape: blocked: shape [64, 64, 1] has rank 3")


def test_a_name_declared_identically_in_two_included_files_is_rejected(capsys, tmp_path):
    (tmp_path / "d1.yaml").write_text(ENCODINGS)
    (tmp_path / "d2.yaml").write_text(ENCODINGS)
    (tmp_path / "s.yaml").write_text(SPEC.replace(f'encodings:\n  b: {{attr: "{BLOCKED}"}}\n',
                                                  "include: [d1.yaml, d2.yaml]\n"))
    code, err = verify(capsys, tmp_path, tmp_path / "s.yaml")
    assert (code, err) == (2, f"{tmp_path / 's.yaml'}:3: field 'include[1]': the name 'b' is declared both at "
                              f"{tmp_path / 'd1.yaml'}:3 and at {tmp_path / 'd2.yaml'}:3")


def test_one_file_included_twice_is_one_declaration(capsys, tmp_path):
    (tmp_path / "d1.yaml").write_text(ENCODINGS)
    (tmp_path / "d2.yaml").write_text("version: 1\ninclude: [d1.yaml]\n")
    (tmp_path / "s.yaml").write_text(SPEC.replace(f'encodings:\n  b: {{attr: "{BLOCKED}"}}\n',
                                                  "include: [d1.yaml, d2.yaml]\n"))
    assert verify(capsys, tmp_path, tmp_path / "s.yaml")[0] == 0


EXPLAIN = f"""#blocked = {BLOCKED}
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", \
"ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k() {{
    %0 = arith.constant dense<0.000000e+00> : tensor<128x1xf32, {BLOCKED[:-2]}, bogus = 1}}>>
    %1 = arith.constant dense<0.000000e+00> : tensor<128x1xf32, #blocked>
    tt.return
  }}
}}
"""


def test_explain_on_a_line_with_a_reader_error_exits_2(capsys, tmp_path):
    (tmp_path / "k.ttgir").write_text(EXPLAIN)
    code, err = verify(capsys, tmp_path, tmp_path / "k.ttgir", "--explain", "4")
    assert (code, err) == (2, f"{tmp_path / 'k.ttgir'}:4: arith.constant: blocked: unknown key 'bogus' (at column 103)")
    assert verify(capsys, tmp_path, tmp_path / "k.ttgir", "--explain", "5")[0] == 0
