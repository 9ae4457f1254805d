"""The kernel's tensor memory (checker.ttgir.tmem_allocation) against Triton 3.9's TensorMemoryAllocation pass
(tools/allocation_oracle.py runs it after shared-memory allocation, as make_llir does): every module of Triton's
lit tests that allocates tensor memory (tests/allocation/tmem_lit), the corpus's Blackwell kernels
(tests/corpus/tmem.json) and a module whose MMA ties rows through branches; and the fits[tensor_memory] check."""

import json
import pathlib

import pytest

import checker
from checker.syntax.ttgir import read_ttgir
from checker.ttgir.tmem_allocation import CAPACITY_COLUMNS, allocation_size, tmem_budget

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIT = ROOT / "tests" / "allocation" / "tmem_lit"
LIT_EXPECTED = json.loads((LIT / "expected.json").read_text())
CORPUS = ROOT / "tests" / "corpus"
CORPUS_EXPECTED = json.loads((CORPUS / "tmem.json").read_text())

# the one lit module the model reads as an estimate: its blocks are labelled by hand (^switch), not as MLIR
# prints them, so its branches are not followed (tests/allocation/tmem_rows_cf.ttgir is it, relabelled: exact)
HAND_LABELLED = "TritonNvidiaGPU_test_tensor_memory_allocation_L369.ttgir"


def _placed(path: pathlib.Path):
    [m] = read_ttgir(path.read_text(), path.name)
    b = tmem_budget(m)
    return b, sorted([c.line, c.column, c.row] for c in b.chunks)


def test_the_lit_modules_are_all_accounted_for():
    assert len(LIT_EXPECTED) == 59
    # every figure tcgen05.alloc can ask for, and one past the capacity (loop-pipeline-expand's three buffers)
    assert sorted({v["tmem_size"] for v in LIT_EXPECTED.values()}) == [32, 64, 128, 256, 512, 768]
    assert LIT_EXPECTED["TritonGPU_loop_pipeline_expand_L68.ttgir"]["tmem_size"] == 768


@pytest.mark.parametrize("name", sorted(LIT_EXPECTED))
def test_every_lit_allocation_where_triton_places_it(name):
    b, placed = _placed(LIT / name)
    if name == HAND_LABELLED:
        assert b.uncertain and "^switch" in b.uncertain[0]
        return
    assert not b.uncertain
    assert (b.size, placed) == (LIT_EXPECTED[name]["tmem_size"], LIT_EXPECTED[name]["tmem_ops"])


@pytest.mark.parametrize("name", sorted(CORPUS_EXPECTED))
def test_every_corpus_kernel_needs_the_tensor_memory_triton_allocates(name):
    b, placed = _placed(CORPUS / name)
    assert not b.uncertain
    assert (b.size, placed) == (CORPUS_EXPECTED[name]["tmem_size"], CORPUS_EXPECTED[name]["tmem_ops"])


def test_a_64_row_operand_shares_its_accumulators_rows_through_branches():
    """%lhs is %a0 or %a1 (arith.select) or %a2 (a cf.br): all three and the accumulator %c take rows 0-63, side
    by side, where without the constraint the second and fourth would sit below the first and third."""
    b, placed = _placed(ROOT / "tests" / "allocation" / "tmem_rows_cf.ttgir")
    assert not b.uncertain
    assert (b.columns, b.size, placed) == (160, 256, [[20, 0, 0], [21, 32, 0], [22, 64, 0], [23, 96, 0]])


def test_sizes_follow_the_layout_rows_columns_and_buffers():
    """getTmemAllocSizes on the lit test's first module: a 128-row block is 128 x N 32-bit columns (f16 with
    colStride 2: one per column); 64-row blocks, whose row-16 basis is zero, take one 64-row half; the scales
    encoding of a 64x4 i8 tensor, 128 rows by 2 columns."""
    text = LIT / "TritonNvidiaGPU_test_tensor_memory_allocation_L12.ttgir"
    [m] = read_ttgir(text.read_text(), "x")
    sizes = [allocation_size(op.result_types[0]) for op in m.operations if op.name == "ttng.tmem_alloc"]
    assert sizes == [(128, 128), (128, 128), (64, 64), (128, 128), (64, 128), (64, 128), (128, 128), (128, 2),
                     (128, 2)]


OVER = (ROOT / "tests" / "allocation" / "tmem_over_capacity.ttgir").read_text()


def test_past_512_columns_is_an_error_triton_refuses_too():
    """Three 128x256 f32 buffers need 768 columns: Triton's metadata.tmem_size is 768 and its CompiledKernel raises
    OutOfResources (torchao's Hadamard quantize kernel with BLOCK_M = 256 needs 640, seen on a real autotune
    config). Its result is used: an unused buffer is erased before allocation, by Triton and by the model."""
    report = checker.verify(OVER)
    [fit] = [c for c in report["checks"] if c["id"].endswith("fits[tensor_memory]")]
    assert (fit["verdict"], fit["severity"], fit["passed"]) == ("fails", "error", False)
    assert fit["details"]["tmem_columns"] == fit["details"]["tmem_size"] == 768
    assert fit["details"]["capacity_columns"] == CAPACITY_COLUMNS == 512
    assert fit["details"]["allocations"] == [{"line": 8, "rows": 128, "columns": 768, "row": 0, "column": 0,
                                              "what": "3x128x256xf32"}]
    assert fit["explanation"] == ("the kernel needs 768 columns of tensor memory (1 allocation), past the 512 "
                                  "columns of sm100: Triton refuses to load it (OutOfResources); largest: 128x768 at "
                                  "line 8 (3x128x256xf32)")


def test_within_512_columns_holds_with_tritons_rounded_figure():
    two = OVER.replace("3x128x256xf32", "2x128x128xf32").replace("128x256", "128x128")
    report = checker.verify(two.replace("blockN = 256", "blockN = 128").replace("[1, 256]", "[1, 128]"))
    [fit] = [c for c in report["checks"] if c["id"].endswith("fits[tensor_memory]")]
    assert fit["passed"] and (fit["details"]["tmem_columns"], fit["details"]["tmem_size"]) == (256, 256)
    assert fit["explanation"] == ("the kernel needs 256 columns of tensor memory (1 allocation; Triton allocates "
                                  "256), within the 512 columns of sm100")


def test_a_module_without_tensor_memory_has_no_such_check():
    report = checker.verify(str(ROOT / "specs" / "kernels" / "matmul.cuda90.ttgir"))
    assert not any(c["id"].endswith("fits[tensor_memory]") for c in report["checks"])


def test_a_real_kernel_past_the_capacity_is_the_one_error():
    """torchao's Hadamard quantize kernel in its BLOCK_M = 256 autotune config (Triton 3.9.0, cuda:100): two tensor
    memory buffers of 512 and 128 columns, live at once: 640 columns, Triton's metadata.tmem_size, past the 512 an
    SM has. Its shared memory is Triton's metadata.shared; no other check errs."""
    path = ROOT / "tests" / "verify" / "ttgir" / "torchao_hadamard_tmem640_cuda100_triton39.ttgir"
    report = checker.verify(str(path), engine="f2")
    failed = [c for c in report["checks"] if not c["passed"] and c["severity"] == "error"]
    assert [c["id"].rsplit(":", 1)[1] for c in failed] == ["fits[tensor_memory]"]
    assert (failed[0]["details"]["tmem_columns"], failed[0]["details"]["tmem_size"]) == (640, 640)
    assert [(a["line"], a["columns"], a["column"]) for a in failed[0]["details"]["allocations"]] == [
        (222, 512, 0), (223, 128, 512)]
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert budget["details"]["kernel_bytes"] == 168560


# tests/verify/ttgir's Blackwell kernels compiled by Triton 3.9: Triton's ttg.tensor_memory_size for each
VERIFY_TMEM = {"blackwell_epilogue_split.ttgir": 512, "blackwell_tma_matmul.ttgir": 128,
               "blackwell_tmem_only.ttgir": 256}


@pytest.mark.parametrize("name", sorted(VERIFY_TMEM))
def test_the_real_blackwell_kernels_tensor_memory_is_tritons(name):
    b, _ = _placed(ROOT / "tests" / "verify" / "ttgir" / name)
    assert (b.size, b.uncertain) == (VERIFY_TMEM[name], [])
