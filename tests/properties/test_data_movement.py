"""checker.properties.data_movement: shape ops keep every element in its thread, on Triton's own IR and on
mutated IR that pairs an op with a layout Triton would not give it."""

import pathlib

import pytest

import checker
from checker.properties.data_movement import data_movement, expected_layout
from checker.verdict import Engines

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


def test_a_join_may_put_its_bit_at_any_register_position_triton_interleaves_chunks():
    """JoinOpConversion interleaves chunks of 2^p registers of each operand, p the position of the result's first
    register basis along the new dim: a result with that basis at register 1 (OpenAI triton_kernels' Hopper mxfp4
    unswizzle: #linear5 at register 2) holds, both engines. The same basis at 1 with the operand's first two
    register bases swapped around it is another order, which the interleaving fills wrongly."""
    from checker.layout import LinearLayout
    lanes = [(0, 4), (0, 8), (0, 16), (1, 0), (2, 0)]
    S = LinearLayout({"register": [(0, 1), (0, 2)], "lane": lanes}, [("dim0", 4), ("dim1", 32)])
    R = LinearLayout({"register": [(0, 1, 0), (0, 0, 1), (0, 2, 0)], "lane": [b + (0,) for b in lanes]},
                     [("dim0", 4), ("dim1", 32), ("dim2", 2)])
    r = data_movement(S, R, "join")
    assert r.holds and set(r.verdicts) == {"f2", "z3"} and r.details["level"] == "register"
    swapped = LinearLayout({"register": [(0, 2, 0), (0, 0, 1), (0, 1, 0)], "lane": [b + (0,) for b in lanes]},
                           [("dim0", 4), ("dim1", 32), ("dim2", 2)])
    r = data_movement(S, swapped, "join")
    assert r.fails and r.details["level"] == "register" and r.counterexample.replay()


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


# ------------------------------------------------------------ tt.reshape allow_reorder: the registers pass through

def _lin(register, lane, warp, n=128):
    from checker.layout import LinearLayout
    return LinearLayout([("register", [(b,) for b in register]), ("lane", [(b,) for b in lane]),
                         ("warp", [(b,) for b in warp]), ("block", [])], [("dim0", n)])


def test_a_reorder_reshape_of_a_real_kernel_passes_its_registers_through():
    """Liger's cross entropy (Triton 3.9, cuda:90): two 32768-element reshapes allow_reorder from sizePerThread 8 to
    1, both 32 registers a thread and no repeated data: each holds, no data moves."""
    path = pathlib.Path(__file__).resolve().parents[1] / "verify" / "ttgir" / \
        "liger_cross_entropy_cuda90_triton39.ttgir"
    report = checker.verify(str(path), only=["*tt.reshape:data_movement*"])
    recs = report["checks"]
    assert [(c["source"]["line"], c["verdict"], c["details"]["allow_reorder"], c["details"]["registers"],
             c["details"]["level"]) for c in recs] == [(78, "holds", True, [32, 32], "register"),
                                                       (93, "holds", True, [32, 32], "register")]
    assert all(set(c["engines"]) == {"f2", "z3"} for c in recs)
    assert recs[0]["explanation"].startswith("no data moves: each thread's registers pass through")


def test_a_reorder_reshape_that_triton_lowers_wrongly():
    """Both layouts repeat data on warp bit 1 (the same free-variable masks: Triton lowers the reshape), but S pairs
    it with lane 1 and R with lane 2: lanes 0 and 1 of warp 2 hold one operand element, which the result places
    twice, and some result element is never written. Both engines find a witness; every witness replays."""
    S = _lin([], [1, 2, 4, 8, 16], [32, 1], n=64)
    R = _lin([], [1, 2, 4, 8, 16], [32, 2], n=64)
    assert S.get_free_variable_masks() == R.get_free_variable_masks()
    for engine in ("f2", "z3"):
        r = data_movement(S, R, "reshape", allow_reorder=True, engines=Engines(engine))
        assert r.fails and r.details["level"] is None and r.counterexample.replay()
        d = r.counterexample.data
        assert (d["result"][0] == d["result"][1]) != (d["operand"][0] == d["operand"][1])
    r = data_movement(S, R, "reshape", allow_reorder=True)
    assert r.explanation == ("indices (register=0, lane=0, warp=0, block=0) and (register=0, lane=1, warp=2, "
                             "block=0) hold one operand element (dim0=0), which the result places twice, at (dim0=0) "
                             "and (dim0=3) (another result element is never written)")
    r = data_movement(R, S, "reshape", allow_reorder=True)
    assert r.fails and r.counterexample.replay()


def test_a_reorder_reshape_whose_layouts_repeat_other_bits_is_an_expensive_view():
    """S repeats its register, R lane 1's data: other free-variable masks, which Triton's lowering refuses."""
    r = data_movement(_lin([0], [1, 2, 4, 8, 16], [32, 64]), _lin([1], [0, 2, 4, 8, 16], [32, 64]), "reshape",
                      allow_reorder=True)
    assert r.fails and r.verdicts == {} and r.explanation == (
        "Triton refuses to lower it (an expensive view: the layouts repeat data on other in-bits, free-variable "
        "masks register 0x1 -> 0x0, lane 0x0 -> 0x1)")


def test_a_reorder_reshape_between_other_register_counts_is_an_expensive_view():
    S = _lin([], [1, 2, 4, 8, 16], [32, 64])
    R = _lin([1], [2, 4, 8, 16, 32], [64], n=128)
    r = data_movement(S, R, "reshape", allow_reorder=True)
    assert r.fails and r.details["registers"] == [1, 2]
    assert r.explanation == ("the operand and result layouts differ in size (register 1 -> 2, warp 4 -> 2): the two "
                             "layouts span other hardware")
    R2 = _lin([1], [2, 4, 8, 16, 32], [64, 0], n=128)
    r = data_movement(S, R2, "reshape", allow_reorder=True)
    assert r.explanation.endswith("Triton refuses to lower it (an expensive view: the threads hold other numbers of "
                                  "registers)")
    with pytest.raises(checker.CheckerError, match="allow_reorder is a reshape's, not a trans's"):
        data_movement(S, S, "trans", order=[0], allow_reorder=True)


def test_a_result_in_another_register_order_is_not_what_the_lowering_passes_through():
    """A transpose into the transposed layout with two register bits swapped: every element stays in its thread
    (register level), but Triton's TransOpConversion hands the registers over in order, so the result would hold
    them in the wrong registers (and Triton's verifier infers exactly the transposed layout)."""
    from checker.layout import LinearLayout
    S = _blocked([1, 4], [4, 8], [4, 1], [1, 0], [64, 32])
    R = _blocked([4, 1], [8, 4], [1, 4], [0, 1], [32, 64])
    regs = list(R.in_bases("register"))
    swapped = LinearLayout([(d, ([regs[1], regs[0]] + regs[2:]) if d == "register" else R.in_bases(d))
                            for d in R.in_dims], R.out_dim_sizes)
    for engine in ("f2", "z3"):
        r = data_movement(S, swapped, "trans", order=[1, 0], engines=Engines(engine))
        assert r.fails and r.details["level"] == "register" and r.counterexample.replay()
    r = data_movement(S, swapped, "trans", order=[1, 0])
    assert r.explanation.startswith("the result's layout is the operand's transposed by order [1, 0] with its "
                                    "registers in another order: Triton's lowering passes each thread's registers "
                                    "through in order")
    assert data_movement(S, R, "trans", order=[1, 0]).holds


def test_a_split_hands_over_its_halves_in_register_order():
    """SplitOpConversion drops the register bit that picks the half and keeps the others in order: the result
    must be exactly that layout (here the split bit is register 0, the result's registers 1, 2 of the operand);
    the same registers in another order keep every element in its thread but are not what the lowering gives."""
    from checker.layout import LinearLayout

    def lay(regs, lanes, shape):
        return LinearLayout([("register", regs), ("lane", lanes), ("warp", []), ("block", [])],
                            [(f"dim{i}", n) for i, n in enumerate(shape)])
    S = lay([(0, 1), (1, 0), (2, 0)], [(4, 0), (8, 0), (16, 0), (32, 0), (0, 0)], [64, 2])
    R = lay([(1,), (2,)], [(4,), (8,), (16,), (32,), (0,)], [64])
    assert data_movement(S, R, "split").holds
    swapped = lay([(2,), (1,)], [(4,), (8,), (16,), (32,), (0,)], [64])
    r = data_movement(S, swapped, "split")
    assert r.fails and r.details["level"] == "register" and r.counterexample.replay()
    assert r.explanation.startswith("the result's layout is the operand's split along its minor dim with its "
                                    "registers in another order")


def test_fp4_to_fp_unpacks_each_byte_into_two_consecutive_registers():
    """ttg.fp4_to_fp (Fp4ToFpOpToLLVM: result register 2i + k is nibble k of operand register i): the result is the
    operand with a new first register basis along the axis and every other basis doubled along it. Triton's own
    IR holds (tl_dot_scaled_mxfp4: a linear layout along dim1, a blocked one along dim0, both engines); the new
    basis anywhere but first is another order, which the lowering fills wrongly."""
    from checker.layout import LinearLayout
    lanes = [(0, 1), (0, 2), (1, 0), (2, 0), (4, 0)]
    S = LinearLayout({"register": [(8, 0), (0, 4), (64, 0)], "lane": lanes}, [("dim0", 128), ("dim1", 8)])
    E = expected_layout(S, "fp4_to_fp", axis=1)
    assert E.in_bases("register") == ((0, 1), (8, 0), (0, 8), (64, 0))
    assert E.in_bases("lane")[:2] == ((0, 2), (0, 4)) and E.out_dim_sizes == (("dim0", 128), ("dim1", 16))
    r = data_movement(S, E, "fp4_to_fp", axis=1)
    assert r.holds and r.details["axis"] == 1 and set(r.verdicts) == {"f2", "z3"}
    late = LinearLayout({"register": [(8, 0), (0, 1), (0, 8), (64, 0)], "lane": [b for b in E.in_bases("lane")]},
                        E.out_dim_sizes)
    r = data_movement(S, late, "fp4_to_fp", axis=1)
    assert r.fails and r.details["level"] == "register" and r.counterexample.replay()
    for target in ("cuda80", "cuda90"):
        report = checker.verify(str(CORPUS / f"tl_dot_scaled_mxfp4.{target}.ttgir"))
        fp4 = [(c["source"]["line"], c["verdict"], c["details"]["axis"]) for c in report["checks"]
               if c["property"] == "data_movement" and c["details"]["kind"] == "fp4_to_fp"]
        assert fp4 == [(132, "holds", 1), (143, "holds", 0)]
