"""The whole kernel's shared memory (checker.ttgir.allocation) against Triton's own allocation: the `shared` each
Triton release records in a kernel's metadata (tests/corpus/asm.json, tests/versions/corpus/*/asm.json), and
every buffer's offset Triton 3.9 gives the modules of tests/allocation (tools/allocation_oracle.py)."""

import json
import pathlib

import pytest

from checker.syntax.ttgir import read_ttgir
from checker.ttgir.allocation import Buffer, budget, capture_bytes, function_budgets, padded_partition_warps, place
from checker.versions import using

TESTS = pathlib.Path(__file__).resolve().parents[1]
CORPUS = TESTS / "corpus"
ALLOCATION = TESTS / "allocation"


def _totals(folder: pathlib.Path):
    facts = json.loads((folder / "asm.json").read_text())
    for name, f in sorted(facts.items()):
        if "shared" in f and (folder / name).exists():
            modules = read_ttgir((folder / name).read_text(), name)
            yield name, sum(budget(m).total for m in modules), f["shared"], modules


def test_every_corpus_kernel_needs_what_triton_39_allocates():
    rows = list(_totals(CORPUS))
    assert len(rows) == 362
    assert [(name, ours, theirs) for name, ours, theirs, _ in rows if ours != theirs] == []
    assert all(budget(m).exact for _, _, _, ms in rows for m in ms)


@pytest.mark.parametrize("release,count", [("3.5", 71), ("3.6", 81), ("3.7", 80), ("3.8", 88)])
def test_every_older_release_kernel_needs_what_that_release_allocates(release, count):
    with using(release):
        rows = list(_totals(TESTS / "versions" / "corpus" / release))
    assert len(rows) == count
    assert [(name, ours, theirs) for name, ours, theirs, _ in rows if ours != theirs] == []


EXPECTED = json.loads((ALLOCATION / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_buffer_where_triton_places_it(name):
    """Random programs (loops, branches, while loops, deallocations, views, loop-carried and selected buffers,
    conversions) and hand-written cases, as Triton 3.9 allocates them: the total and each buffer's offset."""
    want = EXPECTED[name]
    [m] = read_ttgir((ALLOCATION / name).read_text(), name)
    assert m.target == want["target"]
    b = budget(m)
    assert b.total == want["shared"]
    root = next(op for op in m.operations if op.name == "tt.func" and "public" in op.text)
    inside = [pair for pair in want["ops"] if root.line <= pair[0] <= root.end_line]
    assert sorted([x.line, x.offset] for x in b.buffers) == inside
    assert b.exact


def test_released_buffers_are_reused_across_a_persistent_loop():
    """Blackwell persistent TMA matmul: the epilogue buffers of the loop's two branches share their space
    (lines 144 and 218 at the same offset, as Triton places them), the kernel needs 131120 B."""
    [m] = read_ttgir((CORPUS / "tl_persistent_tma.cuda100.ttgir").read_text(), "k")
    b = budget(m)
    offsets = {x.line: x.offset for x in b.buffers}
    assert (b.total, offsets[144], offsets[218]) == (131120, 98304, 98304)


def test_a_noinline_call_is_a_virtual_buffer_at_the_call():
    [m] = read_ttgir((ALLOCATION / "call_noinline.ttgir").read_text(), "c")
    b = budget(m)
    call = next(x for x in b.buffers if x.kind == "virtual")
    assert (call.line, call.size, call.offset, call.what, b.total) == (19, 4096, 8192, "@helper", 12288)


def test_an_inlined_call_is_allocated_as_its_callees_operations():
    """Without noinline, Triton's inliner puts the callee's operations at the call before allocating: the
    callee's conversion is a scratch buffer of the caller (Triton 3.9: 12288, the conversion at 8192)."""
    text = (ALLOCATION / "call_noinline.ttgir").read_text().replace(" attributes {noinline = true}", "")
    [m] = read_ttgir(text, "c")
    b = budget(m)
    assert b.exact and b.total == 12288
    assert sorted((x.line, x.kind, x.offset, x.size) for x in b.buffers) == [(11, "scratch", 8192, 4096),
                                                                             (18, "explicit", 0, 8192)]
    assert list(function_budgets(m)) == ["k"]          # the private callee, called no more, is erased


def test_inlined_calls_are_copied_per_call_nested_calls_first():
    """tests/allocation/call_inlined.ttgir against Triton 3.9's passes (tools/allocation_oracle.py): @stage,
    called in @loop's loop and in @k, allocates twice (line 18, both at 8192); @loop's noinline call of @leaf
    stays a virtual buffer; @convert, public, is allocated on its own as well; a call whose results nothing
    uses goes with its callee's operations; the private @unused is erased."""
    [m] = read_ttgir((ALLOCATION / "call_inlined.ttgir").read_text(), "c")
    functions = function_budgets(m)
    placed = sorted([x.line, x.offset] for b in functions.values() for x in b.buffers)
    assert placed == [[13, 0], [18, 8192], [18, 8192], [29, 8192], [33, 0], [33, 8192], [43, 0]]
    assert sorted(functions) == ["convert", "k", "leaf"]
    assert budget(m).total == 16384 and all(b.exact for b in functions.values())


def test_partitions_of_a_warp_specialize_never_share_space():
    [m] = read_ttgir((ALLOCATION / "ws_partitions_concurrent.ttgir").read_text(), "ws")
    b = budget(m)
    by_line = {x.line: x for x in b.buffers}
    # the default region's buffer and the two partitions' are live at different times, yet apart
    assert [(by_line[k].offset, by_line[k].size) for k in (16, 24, 32)] == [(0, 8192), (8192, 4096), (12288, 4096)]
    assert (by_line[8].what, by_line[8].size, by_line[8].alignment) == ("warp indices of 4 partition warps", 4, 4)
    assert (by_line[14].size, by_line[14].alignment) == (16, 8)          # two pointer captures
    assert b.total == 16388


def test_partitioned_buffers_sit_in_different_lds_partitions_on_gfx1250():
    [m] = read_ttgir((ALLOCATION / "partitioned_gfx1250.ttgir").read_text(), "p")
    b = budget(m)
    assert sorted((x.line, x.size, x.offset) for x in b.buffers) == [(13, 32768, 0), (14, 16384, 32768),
                                                                     (14, 16384, 65536)]
    assert b.total == 81920


def test_unused_buffers_and_conversions_are_not_allocated():
    text = """#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b1 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#s = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @k() {
    %c = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #b>
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #s, #smem, mutable>
    %c0 = arith.constant 0 : i32
    %v = ttg.memdesc_index %a[%c0] : !ttg.memdesc<2x64x64xf16, #s, #smem, mutable>
        -> !ttg.memdesc<64x64xf16, #s, #smem, mutable>
    %x = ttg.convert_layout %c : tensor<64x64xf16, #b> -> tensor<64x64xf16, #b1>
    tt.return
  }
}
"""
    [m] = read_ttgir(text, "dead")
    assert [op.name for op in m.operations][2:6] == ["ttg.local_alloc", "arith.constant", "ttg.memdesc_index",
                                                     "ttg.convert_layout"]
    assert (budget(m).total, budget(m).buffers) == (0, [])
    used = text.replace("    tt.return", "    ttg.local_store %x, %v : tensor<64x64xf16, #b1> -> "
                                        "!ttg.memdesc<64x64xf16, #s, #smem, mutable>\n    tt.return")
    [m] = read_ttgir(used, "used")
    # Triton 3.9 (tools/allocation_oracle.py): the buffer at 0, the conversion's 4096 B of scratch at 16384
    assert sorted((b.op, b.size, b.offset) for b in budget(m).buffers) == [("ttg.convert_layout", 4096, 16384),
                                                                           ("ttg.local_alloc", 16384, 0)]


def test_capture_sizes():
    assert [capture_bytes(t, None) for t in ("i32", "i1", "f16", "i64", "!tt.ptr<f16>",
                                            "!tt.tensordesc<128x64xf16, #shared>",
                                            "!ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>",
                                            "!ttg.memdesc<1xi64, #shared1, #smem, mutable>",
                                            "!ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>")] == \
        [4, 1, 2, 8, 8, 8, 20, 12, 8]
    assert capture_bytes("f17", None) is None


def test_partition_warps_are_padded_to_warp_groups():
    [m] = read_ttgir((CORPUS / "gl_ws_tcgen05.cuda100.ttgir").read_text(), "ws")
    assert padded_partition_warps(m) == 4                        # partitions of 1 and 1 warp, padded to 4
    b = budget(m)
    assert [(x.size, x.offset) for x in b.buffers if x.op == "tt.func"] == [(4, 102472)]
    assert b.total == 102476


def test_place_is_first_fit_then_colouring():
    a = Buffer(1, "a", "explicit", 1024, 16, 0, 10)
    b = Buffer(2, "b", "explicit", 512, 16, 5, 20)      # live with a and with c
    c = Buffer(3, "c", "scratch", 2048, 128, 12, 13)    # after a
    total = place([a, b, c])
    # the largest first: c at 0; a (never live with c) at 0 too; b above the larger of them
    assert (c.offset, a.offset, b.offset, total) == (0, 0, 2048, 2560)


def test_blocks_already_written_are_read_as_written():
    """A random program in the form scf-to-cf leaves (27 branches, buffers through block arguments): liveness
    over its written blocks, aliases and dead code through its branches; Triton 3.9 places every buffer
    where the model does (tools/allocation_oracle.py)."""
    [m] = read_ttgir((ALLOCATION / "cf_blocks.ttgir").read_text(), "cf")
    b = budget(m)
    assert b.exact and b.total == 10240
    assert sorted([x.line, x.offset] for x in b.buffers) == [[16, 8192], [66, 0], [76, 0], [116, 2048]]


def test_blocks_not_labelled_as_mlir_prints_them_are_an_estimate():
    text = (ALLOCATION / "cf_blocks.ttgir").read_text().replace("^bb1", "^loop")
    [m] = read_ttgir(text, "cf")
    assert any("^loop is not a block label" in u for u in budget(m).uncertain)


def test_a_tensor_descriptor_capture_takes_its_tdm_dwords_on_amd_from_38():
    """AMDAllocationAnalysisScratchSizeFn (#9506, Triton 3.8): a warp_specialize capture of a tensor descriptor is
    its TDM descriptor, 12 dwords for 2-D, 20 for 3-D to 5-D; before, and on NVIDIA, 8 bytes (a pointer). Triton
    3.9's Gluon gfx1250 TDM GEMM with a warp-specialized loader: 21,668 bytes, its metadata.shared
    (tests/verify/test_real_library_kernels.py), where 8-byte descriptors gave 21,492 as an estimate."""
    from checker.hardware import resolve
    from checker.versions import parse
    amd, nvidia = resolve("gfx1250"), resolve("sm100")
    two, four = "!tt.tensordesc<32x64xf16, #shared>", "!tt.tensordesc<1x2x32x64xf16, #shared1>"
    assert (capture_bytes(two, amd), capture_bytes(four, amd), capture_bytes(two, nvidia)) == (48, 80, 8)
    with using(parse("3.7")):
        assert (capture_bytes(two, amd), capture_bytes(four, amd)) == (8, 8)
