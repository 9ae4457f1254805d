"""checker.properties.data_movement: shape ops keep every element in its thread, on Triton's own IR and on
mutated IR that pairs an op with a layout Triton would not give it."""

import pathlib

import pytest

import checker
from checker.properties.data_movement import data_movement, expected_layout

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "corpus"
BLOCKED = "#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>"


def _blocked(spt, tpw, wpc, order, shape):
    return checker.lower(checker.parse_encoding(BLOCKED.format(spt=spt, tpw=tpw, wpc=wpc, order=order)), shape)


def test_a_transpose_into_the_transposed_layout_moves_nothing():
    S = _blocked([1, 4], [4, 8], [4, 1], [1, 0], [64, 32])
    R = _blocked([4, 1], [8, 4], [1, 4], [0, 1], [32, 64])
    r = data_movement(S, R, "trans", order=[1, 0])
    assert r.holds and r.details == {"kind": "trans", "order": [1, 0], "operand_shape": [64, 32],
                                     "result_shape": [32, 64], "level": "register"}
    assert set(r.verdicts) == {"f2", "z3"}


def test_a_transpose_into_another_layout_moves_data_and_says_where():
    S = _blocked([1, 4], [4, 8], [4, 1], [1, 0], [64, 32])
    R = _blocked([1, 4], [4, 8], [4, 1], [1, 0], [32, 64])
    r = data_movement(S, R, "trans", order=[1, 0])
    assert r.fails and r.details["level"] == "cta"
    assert r.explanation.startswith("data moves between warps (through shared memory): the result's layout is "
                                    "not the operand's transposed by order [1, 0]")
    cx = r.counterexample
    assert cx.replay() and cx.kind == "not_local"
    assert cx.data["result_index"] == {"register": 1, "lane": 0, "warp": 0, "block": 0}
    assert cx.data["element"] == {"dim0": 0, "dim1": 1}


def test_join_puts_the_operands_side_by_side_in_registers():
    S = _blocked([4], [32], [4], [0], [512])
    E = expected_layout(S, "join")
    assert E.in_bases("register")[0] == (0, 1) and E.in_bases("lane")[0] == (4, 0)
    R = _blocked([4, 2], [32, 1], [4, 1], [1, 0], [512, 2])
    assert data_movement(S, R, "join").holds
    # the two operands spread over lanes instead: even lanes hold x, odd lanes y: that moves data in the warp
    R_lanes = _blocked([2, 1], [16, 2], [4, 1], [1, 0], [128, 2])
    r = data_movement(_blocked([1], [32], [4], [0], [128]), R_lanes, "join")
    assert r.fails and r.details["level"] == "warp"


def test_split_needs_the_halves_in_one_thread():
    S = _blocked([1, 2], [32, 1], [4, 1], [1, 0], [128, 2])
    assert data_movement(S, _blocked([1], [32], [4], [0], [128]), "split").holds
    spread = _blocked([1, 1], [16, 2], [4, 1], [1, 0], [64, 2])
    r = data_movement(spread, _blocked([1], [32], [4], [0], [64]), "split")
    assert r.fails and r.details["level"] is None and r.counterexample is None
    assert r.explanation.startswith("the split dim (the operand's minor dim of 2) moves with lane")


@pytest.mark.parametrize("target", ["cuda90", "gfx942"])
def test_every_shape_op_of_a_compiled_kernel_moves_nothing(target):
    report = checker.verify((CORPUS / f"tl_join_split.{target}.ttgir").read_text())
    ops = {c["source"]["op"]: c for c in report["checks"] if c["property"] == "data_movement"}
    assert set(ops) == {"tt.join", "tt.trans", "tt.reshape", "tt.split"}
    assert all(c["verdict"] == "holds" and c["details"]["level"] == "register" for c in ops.values())
    assert ops["tt.trans"]["details"]["order"] == [1, 0]


def test_a_mutated_result_layout_is_an_error_on_its_line():
    text = (CORPUS / "tl_join_split.cuda90.ttgir").read_text()
    line = next(k for k, ln in enumerate(text.split("\n"), 1) if "tt.trans %z" in ln)
    lines = text.split("\n")
    # the transpose's result given the operand's own layout (#blocked1 on a 2x256 tensor)
    lines[line - 1] = lines[line - 1].replace("-> tensor<2x256xf32, #blocked2>", "-> tensor<2x256xf32, #blocked1>")
    report = checker.verify("\n".join(lines))
    [c] = [c for c in report["checks"] if c["property"] == "data_movement" and c["source"]["line"] == line]
    assert (c["verdict"], c["passed"], c["severity"]) == ("fails", False, "error")
    assert c["details"]["level"] in ("warp", "cta")
