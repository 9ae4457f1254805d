"""mma_operands: Triton's TCGen5MMAOp / TCGen5MMAScaledOp verifier rules (Ops.cpp), passing and failing."""

from checker.properties.mma_operands import mma_kind, mma_operands, scaled_operand_type
from checker.syntax.ttgir import read_ttgir

ALIASES = """
#a = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#b = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
#sw = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#d = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#d2 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 2>
#d64 = #ttng.tensor_memory_encoding<blockM = 64, blockN = 128, colStride = 1>
"""
E = read_ttgir(ALIASES + 'module attributes {"ttg.num-warps" = 4 : i32} {}\n')[0].aliases


def run(a="a", b="b", d="d", shapes=([128, 64], [64, 128], [128, 128]), types=("f16", "f16", "f32"), **kw):
    return mma_operands(E[a], E[b], E[d], *shapes, *types, **kw)


def test_f16_matmul_holds():
    r = run()
    assert r.status == "holds", r.explanation


def test_accumulator_type_of_bf16():
    r = run(types=("bf16", "bf16", "f16"), d="d2")
    assert r.status == "fails" and "accumulator type f16 is not one of f32" in r.explanation


def test_kinds_differ():
    r = run(types=("f16", "f8E4M3FN", "f32"))
    assert "element kinds differ" in r.explanation


def test_b_must_be_nvmma():
    r = run(b="sw")
    assert r.status == "fails" and "B must be nvmma_shared or shared_linear, got swizzled_shared" in r.explanation


def test_col_stride_of_accumulator():
    r = run(d="d2")
    assert "D's colStride must be 32 / 32 = 1, got 2" in r.explanation


def test_k_mismatch():
    r = run(shapes=([128, 64], [32, 128], [128, 128]))
    assert "K differs" in r.explanation


def test_two_ctas_flag_must_match():
    r = run(two_ctas=True)
    assert r.status == "fails" and "two_ctas" in r.explanation


def test_scaled_needs_block_m_128():
    r = run(d="d64", scaled=True, lhs="e4m3", rhs="e4m3", types=("f8E4M3FN", "f8E4M3FN", "f32"))
    assert "blockM = 128" in r.explanation
    ok = run(scaled=True, lhs="e4m3", rhs="e4m3", types=("f8E4M3FN", "f8E4M3FN", "f32"))
    assert ok.status == "holds", ok.explanation


def test_scaled_e2m1_packs_k():
    # i8 operands read as e2m1: two values per byte along K (A not transposed, B transposed)
    r = run(scaled=True, lhs="e2m1", rhs="e2m1", types=("i8", "i8", "f32"),
            shapes=([128, 32], [32, 128], [128, 128]))
    assert r.status == "holds", r.explanation


def test_kinds():
    assert mma_kind("f32") == ("tf32", ("f32",))
    assert mma_kind("f8E5M2")[0] == "f8f6f4"
    assert mma_kind("i16") is None
    assert scaled_operand_type("i8", "e2m1") == "f4E2M1FN"
