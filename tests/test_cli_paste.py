"""Pasted layouts on the command line (lower, show, prove, smt): every form a Triton user has in front of
them, its exit code and its output by value; help texts; --explain's ordering and FILE suffix matching."""

import io
import json
import pathlib
import shutil

import pytest

from checker import cli, parse_encoding
from checker.cli import main
from checker.syntax.mlir_attr import parse_attribute, print_attribute
from checker.syntax.pasted import read_pasted

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "tests/conformance/lowering.jsonl"
TILE = "tests/verify/ttgir/ampere_tile.ttgir"

BLOCKED = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [1, 0]}>"
SHARED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
SNIPPET = f"""\
#blocked = {BLOCKED}
#shared = {SHARED}
#smem = #ttg.shared_memory
#loc = loc("kernel.py":10:0)
#loc3 = loc("kernel.py":12:8)
!buf = !ttg.memdesc<2x16x16xf16, #shared, #smem, mutable>
"""


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def lowered_json(capsys, *argv):
    code, out, err = run(capsys, "lower", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


# ---------------------------------------------------------------- every pasted form

BLOCKED_16 = {"bases": {"register": [[0, 1], [1, 0]], "lane": [[0, 2], [0, 4], [2, 0], [4, 0], [8, 0]],
                        "warp": [[0, 8]], "block": []}, "out_dims": {"dim0": 16, "dim1": 16}}


@pytest.mark.parametrize("text, shape", [
    (BLOCKED, ["--shape", "16x16"]),
    (f"#blocked = {BLOCKED}", ["--shape", "16x16"]),
    (f"tensor<16x16xf16, {BLOCKED}>", []),
    (f"tensor<16x16xf16, {BLOCKED}> loc(#loc3)", []),
    (f'tensor<16x16xf32, {BLOCKED}> loc("f.py":1:2)', []),
    (f"tensor<16x16xf16, {BLOCKED}>", ["--shape", "16x16"]),         # agrees with the type
    (SNIPPET + "tensor<16x16xf16, #blocked> loc(#loc3)", []),
    (SNIPPET + "#blocked", ["--shape", "16x16"]),
    (f"  // a comment\n#blocked = {BLOCKED}\n\n", ["--shape", "16x16"]),
])
def test_every_pasted_form_lowers_like_the_attribute(capsys, text, shape):
    assert lowered_json(capsys, text, *shape) == BLOCKED_16
    code, out, _ = run(capsys, "lower", text, *shape)
    assert code == 0 and out.splitlines()[0] == f"{BLOCKED} at 16x16"


def test_memdesc_types_give_shape_and_element_type(capsys):
    plain = lowered_json(capsys, SHARED, "--shape", "16x16")
    assert lowered_json(capsys, SNIPPET + "!ttg.memdesc<16x16xf16, #shared, #smem, mutable> loc(#loc)") == plain
    # a buffer of a multi-buffered allocation: the allocation's trailing dims, as the TTGIR checks lower it
    assert lowered_json(capsys, SNIPPET + "!ttg.memdesc<16x16xf16, #shared, #smem, mutable, 2x16x16>") == plain
    assert lowered_json(capsys, SNIPPET + "!buf") == plain       # a type alias
    assert lowered_json(capsys, f"!tt.tensordesc<tensor<16x16xf16, {SHARED}>>") == plain
    got = read_pasted(SNIPPET + "!buf")
    assert (got.form, got.shape, got.element_type, got.element_bits) == ("memdesc", (16, 16), "f16", 16)
    assert got.encoding == parse_attribute(SHARED)


def test_a_shape_that_disagrees_names_both(capsys):
    code, out, err = run(capsys, "lower", f"tensor<16x16xf16, {BLOCKED}>", "--shape", "32x16")
    assert code == 2 and out == ""
    assert err == ("layoutcheck: error: field '--shape': --shape 32x16 disagrees with the shape 16x16 of "
                   "tensor<16x16xf16, #ttg.blocked<{sizePerThread = [2, 2], threadsPerW...\n")
    code, _, err = run(capsys, "lower", BLOCKED)
    assert code == 2 and err == ("layoutcheck: error: field '--shape': give --shape (e.g. 64x64), or paste a type "
                                 "such as tensor<64x64xf16, #blocked>\n")
    code, _, err = run(capsys, "prove", "conversion", f"tensor<16x16xf16, {BLOCKED}>", f"tensor<32x16xf16, {BLOCKED}>")
    assert code == 2 and "the shape 16x16 of tensor<16x16xf16" in err and "disagrees with the shape 32x16" in err


@pytest.mark.parametrize("text, message", [
    ("#ttig.dpas<{repeatCount = 8, systolicDepth = 8, executionSize = 16, opsPerChan = 2, warpsPerCTA = [1, 4], "
     "repCluster = [1, 1], threadsPerWarp = 16}>",
     "#ttig.dpas<{repeatCount = 8, systolicDepth = 8,...: an Intel encoding (#ttig.dpas): not supported"),
    ("#gluon.auto_encoding", "#gluon.auto_encoding: a Gluon auto encoding: the layout is not chosen yet"),
    ("tensor<16x16xf32, #gluon.auto_encoding>", "#gluon.auto_encoding: a Gluon auto encoding: the layout is not "
                                                "chosen yet"),
    ("#ttg.shared_memory", "#ttg.shared_memory: a memory space, not a layout"),
    ("#smem = #ttg.shared_memory", "#smem (= #ttg.shared_memory): a memory space, not a layout"),
    ("#loc3", "#loc3: a location (an alias of loc(...)), not a layout"),
    ('#loc3 = loc("f.py":1:2)', '#loc3 (= loc("f.py":1:2)): a location, not a layout'),
    ('loc("f.py":1:2)', 'loc("f.py":1:2): a location, not a layout'),
    ("#dpas = #ttig.dpas<{repeatCount = 8}>\ntensor<8x8xf16, #dpas>", "#dpas: an Intel encoding (#ttig.dpas): "
                                                                      "not supported"),
    ("tensor<16x16xf16>", "the type 'tensor<16x16xf16>' has no layout encoding"),
    ("tensor<16x16xf16, #blocked>", "unknown alias '#blocked': paste its definition line ('#blocked = #ttg....') "
                                    "above it, or the attribute itself"),
    (f"#blocked = {BLOCKED}\n#shared = {SHARED}", "the text defines 2 layouts (#blocked, #shared): add a last "
                                                  "line naming the one to use, e.g. '#blocked'"),
    (f"#blocked = {BLOCKED}\n%0 = tt.load %a : tensor<16x16xf16, #blocked>\n%1 = tt.load %b",
     "give one type or attribute after the alias lines, got a second one on line 3: '%1 = tt.load %b' "
     "(to check a whole TTGIR module, use layoutcheck verify)"),
])
@pytest.mark.parametrize("command", ["lower", "show", "prove", "smt"])
def test_what_is_no_layout_is_one_line_exit_2(capsys, text, message, command):
    argv = [command, text, "--shape", "16x16"] if command in ("lower", "show") else \
        [command, "surjective", text, "--shape", "16x16"]
    code, out, err = run(capsys, *argv)
    argument = "encoding" if command in ("lower", "show") else "layouts"     # where: the argument it came from
    assert (code, out, err) == (2, "", f"layoutcheck: error: argument {argument}: {message}\n")


def test_parse_encoding_reads_every_pasted_form():
    enc = parse_attribute(BLOCKED)
    for text in (BLOCKED, f"#blocked = {BLOCKED}", f"tensor<16x16xf16, {BLOCKED}> loc(#loc3)",
                 SNIPPET + "tensor<16x16xf16, #blocked>", f"  {BLOCKED}  "):
        assert parse_encoding(text) == enc
    assert parse_encoding(SNIPPET + "!buf") == parse_attribute(SHARED)
    with pytest.raises(Exception, match=r"a memory space, not a layout"):
        parse_encoding("#ttg.shared_memory")


def test_stdin_gives_the_layout(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(SNIPPET + "tensor<16x16xf16, #blocked>\n"))
    assert lowered_json(capsys, "-") == BLOCKED_16


# ---------------------------------------------------------------- prove and smt take types

def test_prove_takes_shape_and_dtype_from_the_types(capsys):
    reg, mem = f"tensor<16x16xf16, {BLOCKED}>", SNIPPET + "!ttg.memdesc<16x16xf16, #shared, #smem, mutable>"
    code, out, err = run(capsys, "prove", "bank_conflict_free", reg, mem, "--json")
    explicit = run(capsys, "prove", "bank_conflict_free", BLOCKED, SHARED, "--shape", "16x16", "--dtype-bits", "16",
                   "--json")
    got, want = json.loads(out), json.loads(explicit[1])
    assert code == explicit[0] and got["status"] in ("holds", "fails")
    assert {k: got[k] for k in ("status", "counterexample", "details")} == \
        {k: want[k] for k in ("status", "counterexample", "details")}
    code, _, err = run(capsys, "prove", "bank_conflict_free", reg, mem, "--dtype-bits", "32")
    assert code == 2 and err == ("layoutcheck: error: field '--dtype-bits': --dtype-bits 32 disagrees with the "
                                 f"element type f16 (16 bits) of {reg[:67]}...\n")
    code, out, _ = run(capsys, "prove", "fits", mem)
    assert (code, out) == (0, "fits: holds\n" + run(capsys, "prove", "fits", SHARED, "--shape", "16x16",
                                                     "--dtype-bits", "16")[1].split("\n", 1)[1])
    code, out, _ = run(capsys, "prove", "surjective", reg)
    assert (code, out.splitlines()[0]) == (0, "surjective: holds")


def test_smt_of_a_type_is_the_smt_of_the_attribute(capsys):
    dup = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [1, 0]}>"
    code, out, _ = run(capsys, "smt", "injective", f"tensor<4x4xf16, {dup}> loc(#loc1)")
    assert code == 0 and out == run(capsys, "smt", "injective", dup, "--shape", "4x4")[1]
    assert "(check-sat)" in out


# ---------------------------------------------------------------- lower prints Triton's text; show everywhere

def test_lower_prints_padded_as_triton_does(capsys):
    text = "#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [16, 16]}>"
    code, out, _ = run(capsys, "lower", text, "--shape", "16x16")
    lines = out.splitlines()
    assert code == 0
    assert lines[:4] == [f"{text} at 16x16",
                         "padding: 8 empty slot(s) after every 64 elements; 256 elements span 280 slots per CTA",
                         " - offset=1 -> (0, 1)", "   offset=2 -> (0, 2)"]
    assert lines[-2:] == [" - block is a size 1 dimension", "where out dims are: [dim0 (size 16), dim1 (size 16)]"]
    assert "PaddedLayout(" not in out
    assert lowered_json(capsys, text, "--shape", "16x16")["intervals"] == [64]


def _cases():
    """One case per family of Triton's own lowering fixtures (the smallest), with Triton's printed type."""
    best = {}
    for line in CONFORMANCE.read_text().splitlines():
        c = json.loads(line)
        if c.get("error") and c["family"] != "padded_shared" or "mlir_type" not in c:
            continue
        size = 1
        for s in c["shape"]:
            size *= s
        if c["family"] not in best or size < best[c["family"]][0]:
            best[c["family"]] = (size, c)
    return [c for _, c in sorted(best.values(), key=lambda sc: sc[1]["family"])]


TMEM = [("#ttng.tensor_memory_encoding<blockM = 128, blockN = 8, colStride = 1>", "128x8"),
        ("#ttng.tensor_memory_encoding<blockM = 64, blockN = 16, colStride = 2>", "64x16"),
        ("#ttng.tensor_memory_scales_encoding<>", "128x4"),
        ("#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [1, 0]}>", "64x64")]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["family"])
def test_lower_and_show_every_family_from_its_triton_type(capsys, case):
    shape = "x".join(map(str, case["shape"]))
    code, out, err = run(capsys, "lower", case["mlir_type"])
    assert code == 0, err
    enc = parse_attribute(case["mlir_attr"])
    assert out.splitlines()[0] == f"{print_attribute(enc)} at {shape}"
    if case["roundtrip"]["reprinted_equal"]:
        assert out.splitlines()[0] == f"{case['mlir_attr']} at {shape}"
    for hw in ([], ["--hw"]):
        code, out, err = run(capsys, "show", case["mlir_type"], *hw)
        assert code == 0 and out.strip(), err


@pytest.mark.parametrize("text, shape", TMEM)
def test_show_and_lower_tensor_memory(capsys, text, shape):
    code, out, err = run(capsys, "lower", text, "--shape", shape)
    assert code == 0 and out.splitlines()[0] == f"{text} at {shape}"
    for hw in ([], ["--hw"]):
        code, out, err = run(capsys, "show", text, "--shape", shape, *hw)
        assert code == 0 and out.strip(), err


def test_show_tensor_memory_by_value(capsys):
    text, shape = TMEM[0]
    code, out, _ = run(capsys, "show", f"tensor<128x8xf32, {text}>")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 128
    assert lines[0] == "[[R  0:C0, R  0:C1, R  0:C2, R  0:C3, R  0:C4, R  0:C5, R  0:C6, R  0:C7]"
    assert lines[127] == "[ R127:C0, R127:C1, R127:C2, R127:C3, R127:C4, R127:C5, R127:C6, R127:C7]]"
    code, out, _ = run(capsys, "show", text, "--shape", shape, "--hw")
    lines = out.splitlines()
    assert len(lines) == 128
    assert lines[0] == "Row   0: (  0,0), (  0,1), (  0,2), (  0,3), (  0,4), (  0,5), (  0,6), (  0,7)"
    assert lines[5] == "Row   5: (  5,0), (  5,1), (  5,2), (  5,3), (  5,4), (  5,5), (  5,6), (  5,7)"


# ---------------------------------------------------------------- help texts

def _subparsers():
    import argparse
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


@pytest.mark.parametrize("command", ["lower", "show", "prove", "smt", "verify"])
def test_every_option_has_help_with_its_default(command):
    import argparse
    sp = _subparsers()[command]
    for action in sp._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"{command} {action.dest} has no help"
        has_default = action.default not in (None, False, [], argparse.SUPPRESS)
        if action.option_strings and (has_default or action.default is None) and action.nargs != 0 \
                and action.dest not in ("only", "skip"):
            assert "default" in action.help, f"{command} {action.option_strings} does not state its default"
    text = sp.format_help()
    assert "%(" not in text


def test_help_states_the_defaults(capsys):
    for argv, wanted in ((["prove", "--help"], ["(default: sm90, an H100)", "(default: both)", "(default: 10000)",
                                                 "(default: the property's own, store for shared memory)",
                                                 "(default: auto)", "(default: hardware)"]),
                         (["verify", "--help"], ["(default: from the module's ttg.target)", "(default: 10000)",
                                                  "--grids"]),
                         (["lower", "--help"], ["(default: the shape of a pasted tensor/memdesc type"])):
        with pytest.raises(SystemExit):
            main(argv)
        out = " ".join(capsys.readouterr().out.split())
        for w in wanted:
            assert w in out, (argv, w)


# ---------------------------------------------------------------- --explain

def explain(capsys, monkeypatch, *argv):
    monkeypatch.chdir(ROOT)
    return run(capsys, "verify", *argv)


def test_explain_prints_verdicts_first_and_grids_only_on_request(capsys, monkeypatch):
    code, out, err = explain(capsys, monkeypatch, TILE, "--explain", "15")
    assert code == 0, err
    heads = [ln for ln in out.splitlines() if ln.startswith("== ")]
    verdicts = [i for i, h in enumerate(heads) if h.startswith("== ttg.local_load ")]
    layouts = [i for i, h in enumerate(heads) if not h.startswith("== ttg.local_load ")]
    assert verdicts and layouts and max(verdicts) < min(layouts)
    assert heads[layouts[0]].startswith("== reg: #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<")
    assert out.splitlines()[-1] == "(--grids shows who holds each element of each layout)"
    assert "T0:0" not in out
    code, grid, _ = explain(capsys, monkeypatch, TILE, "--explain", "15", "--grids")
    assert code == 0 and "T0:0" in grid and "(--grids" not in grid
    assert grid.index("T0:0") > grid.index("== reg: ") > grid.index("== ttg.local_load ")
    assert [ln for ln in grid.splitlines() if ln.startswith("== ")] == heads


@pytest.mark.parametrize("where", ["ampere_tile.ttgir:15", "ttgir/ampere_tile.ttgir:15",
                                   f"{TILE}:15", f"./{TILE}:15", str(ROOT / TILE) + ":15"])
def test_explain_matches_the_file_by_path_suffix(capsys, monkeypatch, where):
    code, out, err = explain(capsys, monkeypatch, TILE, "specs/kernels/matmul.cuda80.ttgir", "--explain", where)
    assert code == 0, err
    assert out == explain(capsys, monkeypatch, TILE, "--explain", "15")[1]


def test_explain_file_that_names_no_or_several_inputs(capsys, monkeypatch, tmp_path):
    code, _, err = explain(capsys, monkeypatch, TILE, "--explain", "tile.ttgir:15")    # not a whole component
    assert code == 2 and err == (f"layoutcheck: error: field '--explain': --explain needs exactly one TTGIR input "
                                 f"named tile.ttgir (inputs: {TILE})\n")
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        shutil.copy(ROOT / TILE, tmp_path / d / "k.ttgir")
    a, b = str(tmp_path / "a" / "k.ttgir"), str(tmp_path / "b" / "k.ttgir")
    code, _, err = explain(capsys, monkeypatch, a, b, "--explain", "k.ttgir:15")
    assert code == 2 and err == (f"layoutcheck: error: field '--explain': k.ttgir names 2 TTGIR inputs ({a}, {b}): "
                                 "give more of its path\n")
    code, out, err = explain(capsys, monkeypatch, a, b, "--explain", "b/k.ttgir:15")
    assert code == 0 and "== ttg.local_load " in out
