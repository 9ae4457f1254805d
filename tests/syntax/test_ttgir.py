"""The TTGIR reader: aliases, module attributes, operations and their types, several modules, bad input."""

import pytest

from checker.syntax.ttgir import read_ttgir

MODULES = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1],
                         order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90",
                   "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @f(%arg0: tensor<32x32xf16, #blocked> {tt.divisibility = 16 : i32}, %n: i32) {
    %0 = ttg.local_alloc %arg0 : (tensor<32x32xf16, #blocked>) -> !ttg.memdesc<32x32xf16, #shared, #smem>
    %1 = "ttg.convert_layout"(%arg0) : (tensor<32x32xf16, #blocked>) -> tensor<32x32xf16, #ttg.slice<{dim = 2,
        parent = #ttg.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [4, 8, 1], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>}>>
    %2 = ttg.async_copy_global_to_local %p, %0 : tensor<32x32x!tt.ptr<f16>, #blocked> -> <32x32xf16, #shared, #smem, mutable>
    %3 = ttg.memdesc_index %m[%c0] : !ttg.memdesc<2x32x32xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x32xf16, #shared, #smem, mutable, 2x32x32>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-warps" = 8 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func @g() {
    %0 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %1 = arith.addi %0, %0 : tensor<512xi32, #blocked> loc(#loc3)
    tt.return
  }
}
"""


def test_modules_aliases_and_attributes():
    first, second = read_ttgir(MODULES, "m.ttgir")
    assert (first.line, first.num_warps, first.threads_per_warp, first.num_ctas, first.target) == (5, 4, 32, 1,
                                                                                                   "cuda:90")
    assert sorted(first.aliases) == ["blocked", "shared"]          # #smem is a memory space, not an encoding
    assert first.alias_lines == {"blocked": 1, "shared": 3}
    assert first.aliases["blocked"].size_per_thread == (1, 4) and first.problems == []
    assert (second.num_warps, second.threads_per_warp, second.target) == (8, 64, "hip:gfx942")
    assert second.aliases["blocked"].threads_per_warp == (64,)      # aliases are per module after `// -----`
    assert [(op.line, op.name) for op in second.operations] == [(21, "tt.func"), (22, "tt.make_range"),
                                                               (23, "arith.addi"), (24, "tt.return")]


def test_operations_and_their_types():
    ops = {op.name: op for op in read_ttgir(MODULES, "m.ttgir")[0].operations}
    func = ops["tt.func"]
    assert [(t.kind, t.shape, t.element_type, t.encoding_text) for t in func.operand_types] == [
        ("tensor", [32, 32], "f16", "#blocked")]
    alloc = ops["ttg.local_alloc"]
    assert [t.kind for t in alloc.operand_types] == ["tensor"]
    assert [(t.kind, t.shape, t.element_bits, t.memory_space, t.mutable) for t in alloc.result_types] == [
        ("memdesc", [32, 32], 16, "#smem", False)]
    convert = ops["ttg.convert_layout"]                             # generic form, type over two lines
    assert convert.line == 9
    assert convert.result_types[0].encoding.kind == "slice" and convert.result_types[0].encoding.dim == 2
    copy = ops["ttg.async_copy_global_to_local"]                   # the bare <...> result is a memdesc
    assert [(t.kind, t.element_type, t.mutable) for t in copy.types] == [("tensor", "!tt.ptr<f16>", False),
                                                                     ("memdesc", "f16", True)]
    assert copy.types[0].element_bits == 64
    index = ops["ttg.memdesc_index"]
    assert [(t.shape, t.alloc_shape) for t in index.types] == [([2, 32, 32], None), ([32, 32], [2, 32, 32])]


def test_alias_only_sections_and_invalid_encodings_are_kept_with_their_lines():
    text = ("#mma = #ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>\n"
            "// -----\n"
            "#bad = #ttg.dot_op<{opIdx = 2, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], "
            "warpsPerCTA = [1, 1], order = [1, 0]}>, kWidth = 2}>\n"
            "#slice = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
            "warpsPerCTA = [4], order = [0]}>}>\n")
    first, second = read_ttgir(text, "a.mlir")
    assert first.aliases["mma"].version_minor == 0                   # versionMinor defaults to 0, as in Triton
    assert [(p.line, p.message) for p in second.problems] == [
        (3, "alias #bad: dot_op: opIdx can be 0 or 1, got 2"),
        (4, "alias #slice: slice: the parent layout must have rank >= 2, got 1")]


@pytest.mark.parametrize("text, line, message", [
    ("module {\n  %0 = tt.load %p : tensor<8x!tt.ptr<f32>, #nowhere>\n}\n", 2,
     "tt.load: unknown alias '#nowhere' (at column 1)"),
    ("#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}\n"
     "module {\n}\n", 1, "alias #b: mismatched brackets"),
    ("#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n"
     "module {\n  %0 = arith.addf %a, %b : tensor<128xf32, #b>\n  %1 = arith.addf %a, %b : tensor<128xf32, #ttg.bl",
     4, "arith.addf: unbalanced brackets in type starting 'tensor<128xf32, #ttg.bl'"),
])
def test_bad_input_becomes_a_problem_on_its_line_and_the_rest_is_read(text, line, message):
    modules = read_ttgir(text, "bad.ttgir")
    assert [(p.line, p.message) for m in modules for p in m.problems] == [(line, message)]
    assert any(op.name.startswith(("tt.", "arith.")) for m in modules for op in m.operations) or line == 1


def test_one_element_shared_buffers_are_valid_in_ttgir():
    """Triton's C++ lowering accepts a one-element shared layout (mbarriers); only Gluon's Python rejects it."""
    from checker.encodings import lower
    text = ("#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n"
            "module {\n  %0 = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared, #ttg.shared_memory, mutable>\n}\n")
    (m,) = read_ttgir(text, "bar.ttgir")
    ref = m.operations[0].result_types[0]
    L = lower(ref.encoding, ref.shape)
    assert (L.in_dim_size("offset"), L.out_dim_size("dim0"), m.problems) == (1, 1, [])
