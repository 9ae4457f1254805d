"""The static properties of the TTGIR op rules, each deciding the checks of its op (its registry decide takes the
check alone) (operands and parameters) with no engine, on kernels Triton 3.9 compiled (tests/verify/ttgir) and on small
modules that break one rule each (tests/ttgir.ops_cases.py)."""

from checker.registry import PROPERTIES, _function
from tests.ttgir.ops_cases import TDM, TMEM, run_file, run_text

OP_PROPERTIES = ("tmem_access", "mma_operands", "tma_copy", "tmem_subslice", "tmem_copy", "local_gather",
                 "scaled_dot", "tdm_copy")


def decided(kc):
    """(line, property, status) of each op check, decided by its registry decide, and the results."""
    out = [(ob, _function(PROPERTIES[ob.property].decide)(ob)) for ob in kc.obligations
           if ob.property in OP_PROPERTIES]
    return [(ob.line, ob.property, r.status) for ob, r in out], [r for _, r in out]


def test_the_registry_decides_the_op_checks_here():
    assert [n for n in OP_PROPERTIES if PROPERTIES[n].static] == list(OP_PROPERTIES)
    assert {n: PROPERTIES[n].decide for n in OP_PROPERTIES} == {
        "tmem_access": "properties.tmem_access:decide", "mma_operands": "properties.mma_operands:decide",
        "tma_copy": "properties.tma:decide", "tmem_subslice": "properties.tmem_views:decide",
        "tmem_copy": "properties.tmem_views:decide", "local_gather": "properties.gather:decide",
        "scaled_dot": "properties.scaled_dot:decide", "tdm_copy": "properties.tdm:decide"}


def test_a_blackwell_tma_matmul_holds_with_its_parameters():
    got, results = decided(run_file("blackwell_tma_matmul.ttgir"))
    assert got == [(41, "tmem_access", "holds"), (59, "tma_copy", "holds"), (62, "tma_copy", "holds"),
                   (66, "tma_copy", "holds"), (68, "tma_copy", "holds"), (71, "mma_operands", "holds"),
                   (74, "tma_copy", "holds"), (76, "tma_copy", "holds"), (92, "mma_operands", "holds"),
                   (106, "tma_copy", "holds"), (108, "tma_copy", "holds"), (123, "tmem_access", "holds"),
                   (127, "tma_copy", "holds")]
    assert all(r.verdicts == {} and r.counterexample is None for r in results)      # static: no engines
    by_line = dict(zip([line for line, _, _ in got], results))
    assert (by_line[41].details["message"], by_line[41].details["maxnreg"]) == ("32x32b", 256)
    assert by_line[71].details == {"a_shape": [128, 64], "b_shape": [64, 128], "d_shape": [128, 128]}
    assert (by_line[127].details["block"], by_line[127].details["box"]) == ([128, 128], [128, 64])


def test_scaled_dot_and_local_gather_of_compiled_kernels():
    got, results = decided(run_file("mxfp4_dot_scaled_gfx950.ttgir"))
    assert got == [(71, "scaled_dot", "holds")] and results[0].details["scale_factor"] == 32
    got, results = decided(run_file("gluon_smem_gather_sm90.ttgir"))
    assert got == [(26, "local_gather", "holds"), (30, "local_gather", "holds")]
    assert [r.details["axis"] for r in results] == [0, 1]


def test_each_rule_broken_once():
    got, results = decided(run_text(TMEM))
    assert got == [(10, "tmem_subslice", "holds"), (11, "tmem_subslice", "fails"), (13, "tmem_copy", "holds"),
                   (14, "tmem_copy", "fails")]
    assert results[0].explanation == ("the subslice at column 128 keeps the source's TMEM layout (TMEM row 0, "
                                      "32-bit column 128)")
    assert results[1].explanation == "the offset N = 96 is not a multiple of the result's width 64"
    assert results[3].explanation == ("a copy into tensor_memory_scales_encoding needs an unswizzled source, got "
                                      "swizzlingByteWidth 128")
    got, results = decided(run_text(TDM))
    assert got == [(10, "tdm_copy", "holds"), (12, "tdm_copy", "fails")]
    assert "TDM does not support swizzling (maxPhase 8)" in results[1].explanation


def test_engine_and_timeout_are_not_used():
    kc = run_text(TDM)
    for ob in kc.obligations:
        if ob.property == "tdm_copy":
            a, b = PROPERTIES["tdm_copy"].run(ob, "both", 10_000), PROPERTIES["tdm_copy"].run(ob, "z3", 1)
            assert (a.status, a.explanation, a.details) == (b.status, b.explanation, b.details)
