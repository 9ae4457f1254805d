"""The TTGIR reader: aliases, module attributes, operations (custom and generic form, in regions), their
SSA names and types, several modules, Triton's lenient attribute parsing, and bad input."""

import pathlib
import re

import pytest

from checker.encodings import lower
from checker.errors import ParseError
from checker.syntax.mlir_attr import parse_attribute
from checker.syntax.ttgir import read_ttgir

MODULES = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1],
                         order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90",
                   "ttg.threads-per-warp" = 32 : i32, ttg.shared = 8192 : i32, ttg.tensor_memory_size = 0 : i32} {
  tt.func public @f(%arg0: tensor<32x32xf16, #blocked> {tt.divisibility = 16 : i32}, %n: i32) {
    %0 = ttg.local_alloc %arg0 : (tensor<32x32xf16, #blocked>) -> !ttg.memdesc<32x32xf16, #shared, #smem>
    %1 = "ttg.convert_layout"(%arg0) : (tensor<32x32xf16, #blocked>) -> tensor<32x32xf16, #ttg.slice<{dim = 2,
        parent = #ttg.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [4, 8, 1], warpsPerCTA = [4, 1, 1], \
order = [2, 1, 0]}>}>>
    %2 = ttg.async_copy_global_to_local %p, %0 : tensor<32x32x!tt.ptr<f16>, #blocked> -> <32x32xf16, #shared, #smem, \
mutable>
    %3 = ttg.memdesc_index %m[%c0] : !ttg.memdesc<2x32x32xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x32xf16, \
#shared, #smem, mutable, 2x32x32>
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
    assert first.attributes == {"ttg.num-ctas": 1, "ttg.num-warps": 4, "ttg.target": "cuda:90",
                                "ttg.threads-per-warp": 32, "ttg.shared": 8192, "ttg.tensor_memory_size": 0}
    assert sorted(first.aliases) == ["blocked", "shared"]          # #smem is a memory space, not an encoding
    assert first.alias_lines == {"blocked": 1, "shared": 3}
    assert first.aliases["blocked"].size_per_thread == (1, 4) and first.problems == []
    assert (second.line, second.num_warps, second.threads_per_warp, second.target) == (20, 8, 64, "hip:gfx942")
    assert second.aliases["blocked"].threads_per_warp == (64,)      # aliases are per module after `// -----`
    assert [(op.line, op.name) for op in second.operations] == [(21, "tt.func"), (22, "tt.make_range"),
                                                               (23, "arith.addi"), (24, "tt.return")]
    assert second.op_counts == {"tt.func": 1, "tt.make_range": 1, "arith.addi": 1, "tt.return": 1}
    assert second.operations[1].attributes == {"end": 512, "start": 0}


def test_operations_their_types_and_values():
    ops = {op.name: op for op in read_ttgir(MODULES, "m.ttgir")[0].operations}
    func = ops["tt.func"]
    assert [(t.kind, t.shape, t.element_type, t.encoding_text) for t in func.operand_types] == [
        ("tensor", [32, 32], "f16", "#blocked")]
    assert (func.arguments, func.operands, func.results, func.end_line) == (["%arg0", "%n"], [], [], 14)
    alloc = ops["ttg.local_alloc"]
    assert (alloc.results, alloc.operands) == (["%0"], ["%arg0"])
    assert [t.kind for t in alloc.operand_types] == ["tensor"]
    assert [(t.kind, t.shape, t.element_bits, t.memory_space, t.mutable) for t in alloc.result_types] == [
        ("memdesc", [32, 32], 16, "#smem", False)]
    convert = ops["ttg.convert_layout"]                             # generic form, type over two lines
    assert (convert.line, convert.end_line, convert.operands) == (9, 10, ["%arg0"])
    assert [(t.line, t.encoding.kind) for t in convert.types] == [(9, "blocked"), (9, "slice")]
    assert convert.result_types[0].encoding.dim == 2
    copy = ops["ttg.async_copy_global_to_local"]                   # the bare <...> result is a memdesc
    assert [(t.kind, t.element_type, t.mutable) for t in copy.types] == [("tensor", "!tt.ptr<f16>", False),
                                                                     ("memdesc", "f16", True)]
    assert copy.types[0].element_bits == 64 and copy.operands == ["%p", "%0"]
    index = ops["ttg.memdesc_index"]
    assert [(t.shape, t.alloc_shape) for t in index.types] == [([2, 32, 32], None), ([32, 32], [2, 32, 32])]
    assert index.operands == ["%m", "%c0"]


REGIONS = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #ttg.slice<{dim = 1, parent = #blocked}>
#loc = loc("/src//kernel.py":7:0)
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func public @loop(%x: tensor<64x64xf32, #blocked> loc("/src//kernel.py":8:0), %n: i32) -> tensor<64xf32, #row> {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : tensor<64xf32, #row>
    %r:2 = scf.for %i = %c0 to %n step %c0 iter_args(%acc = %zero, %t = %x) -> (tensor<64xf32, #row>, \
tensor<64x64xf32, #blocked>)  : i32 {
      %s = "tt.reduce"(%t) <{axis = 1 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %m = arith.maxnumf %a, %b : f32
        tt.reduce.return %m : f32
      }) : (tensor<64x64xf32, #blocked>) -> tensor<64xf32, #row> loc(#loc)
      %c = arith.cmpi slt, %i, %n : i32
      %u = scf.if %c -> (tensor<64xf32, #row>) {
        scf.yield %s : tensor<64xf32, #row>
      } else {
        scf.yield %acc : tensor<64xf32, #row>
      }
      scf.yield %u, %t : tensor<64xf32, #row>, tensor<64x64xf32, #blocked>
    } {tt.num_stages = 2 : i32}
    ttg.warp_specialize(%r#0) attributes {warpGroupStartIds = array<i32: 4>}
    default {
      ttg.warp_yield
    }
    partition0(%arg0: tensor<64xf32, #row>) num_warps(4) {
      ttg.warp_return
    } : (tensor<64xf32, #row>) -> ()
    tt.return %r#0 : tensor<64xf32, #row>
  }
}
"""


def _summary(op):
    return (op.name, op.line, op.end_line, op.parent, op.results, op.operands, op.arguments,
            [t.encoding.kind for t in op.operand_types], [t.encoding.kind for t in op.result_types],
            [t.encoding.kind for t in op.argument_types])


def test_operations_in_regions_with_their_parents_names_and_types():
    (m,) = read_ttgir(REGIONS, "r.ttgir")
    assert m.problems == [] and sorted(m.aliases) == ["blocked", "row"]     # #loc is a location, not a layout
    assert [_summary(op) for op in m.operations] == [
        ("tt.func", 5, 30, None, [], [], ["%x", "%n"], ["blocked"], ["slice"], ["blocked"]),
        ("arith.constant", 6, 6, 0, ["%c0"], [], [], [], [], []),
        ("arith.constant", 7, 7, 0, ["%zero"], [], [], ["slice"], [], []),
        ("scf.for", 8, 21, 0, ["%r#0", "%r#1"], ["%c0", "%n", "%c0", "%zero", "%x"], ["%i", "%acc", "%t"],
         [], ["slice", "blocked"], []),
        ("tt.reduce", 9, 13, 3, ["%s"], ["%t"], ["%a", "%b"], ["blocked"], ["slice"], []),   # ^bb0's arguments
        ("arith.maxnumf", 11, 11, 4, ["%m"], ["%a", "%b"], [], [], [], []),
        ("tt.reduce.return", 12, 12, 4, [], ["%m"], [], [], [], []),
        ("arith.cmpi", 14, 14, 3, ["%c"], ["%i", "%n"], [], [], [], []),
        ("scf.if", 15, 19, 3, ["%u"], ["%c"], [], [], ["slice"], []),
        ("scf.yield", 16, 16, 8, [], ["%s"], [], ["slice"], [], []),
        ("scf.yield", 18, 18, 8, [], ["%acc"], [], ["slice"], [], []),
        ("scf.yield", 20, 20, 3, [], ["%u", "%t"], [], ["slice", "blocked"], [], []),
        ("ttg.warp_specialize", 22, 28, 0, [], ["%r#0"], ["%arg0"], ["slice"], [], ["slice"]),
        ("ttg.warp_yield", 24, 24, 12, [], [], [], [], [], []),
        ("ttg.warp_return", 27, 27, 12, [], [], [], [], [], []),
        ("tt.return", 29, 29, 0, [], ["%r#0"], [], ["slice"], [], []),
    ]
    ops = m.operations
    assert ops[3].attributes == {"tt.num_stages": 2} and ops[4].attributes == {"axis": 1}
    assert ops[12].attributes == {"warpGroupStartIds": "array<i32: 4>"}
    assert ops[3].text.endswith(": i32 {} {tt.num_stages = 2 : i32}")       # regions are shown as {}
    assert ops[12].text.endswith("partition0(%arg0: tensor<64xf32, #row>) num_warps(4) {} : "
                                 "(tensor<64xf32, #row>) -> ()")


def test_generic_forms_type_aliases_descriptors_and_continued_lines():
    text = """\
#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>#b1 = #b
#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
!t = tensor<16x32xf32, #b1>
module attributes {"ttg.num-warps" = 4 : i32} {
  %0:2 = "tt.split"(%x) : (tensor<16x32x2xf32, #ttg.blocked<{sizePerThread = [1, 1, 2], threadsPerWarp = [4, 8, 1], \
warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>>) -> (!t, !t)
  "use"(%0#0, %0#1) : (!t, !t) -> ()
  %d = tt.make_tensor_descriptor %p, [%a, %b], [%c, %d1] : <f16>, <64x64xf16, #nvmma>
  %l = tt.descriptor_load %d[%i, %j] : !tt.tensordesc<64x64xf16, #nvmma> -> tensor<64x64xf16, #b>
  %w = ttng.warp_group_dot %l, %s, %acc
    {inputPrecision = 0 : i32} :
    tensor<64x64xf16, #b> *
    !ttg.memdesc<64x64xf16, #nvmma, #ttg.shared_memory> -> tensor<64x64xf32, #b>
}
"""
    (m,) = read_ttgir(text, "g.ttgir")
    assert m.problems == [] and m.alias_lines == {"b": 1, "b1": 1, "nvmma": 2}   # two definitions on line 1
    assert m.aliases["b1"] is m.aliases["b"]                                 # an alias of an alias
    assert (m.type_aliases["t"].shape, m.type_aliases["t"].line) == ([16, 32], 3)
    split, use, make, load, dot = m.operations
    assert (split.name, split.results, split.operands) == ("tt.split", ["%0#0", "%0#1"], ["%x"])
    assert [(t.shape, t.encoding_text) for t in split.result_types] == [([16, 32], "#b1"), ([16, 32], "#b1")]
    assert (use.name, use.operands, [t.encoding.kind for t in use.operand_types]) == (
        "use", ["%0#0", "%0#1"], ["blocked", "blocked"])
    assert [(t.kind, t.shape, t.encoding.kind) for t in make.types] == [("tensordesc", [64, 64], "nvmma_shared")]
    assert [(t.kind, t.shape) for t in load.types] == [("tensordesc", [64, 64]), ("tensor", [64, 64])]
    # Triton 3.7 writes the made descriptor's block <tensor<...>> (real: tests/verify/ttgir/amd_tdm_copy_triton37.ttgir)
    older = text.replace(": <f16>, <64x64xf16, #nvmma>", ": <f16>, <tensor<64x64xf16, #nvmma>>")
    assert older != text
    (m37,) = read_ttgir(older, "g.ttgir")
    assert m37.problems == []
    assert [(t.kind, t.shape, t.encoding.kind) for t in m37.operations[2].types] == [
        ("tensordesc", [64, 64], "nvmma_shared")]
    assert (dot.line, dot.end_line, dot.attributes) == (9, 12, {"inputPrecision": 0})
    assert [(t.kind, t.line) for t in dot.operand_types] == [("tensor", 11), ("memdesc", 12)]
    assert [(t.kind, t.line) for t in dot.result_types] == [("tensor", 12)]


def test_several_modules_in_one_section_and_a_legacy_one_refused():
    text = """\
#b = #triton_gpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {"triton_gpu.num-warps" = 2 : i32} {
  %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #b>
}
#c = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module @second {
  %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #c>
}
"""
    first, second = read_ttgir(text, "two.mlir")
    # the first module is Triton 3.1's: refused at its first old construct, nothing of it is checked
    assert (first.line, first.operations, [(p.line, p.message) for p in first.problems]) == (2, [], [(
        1, "IR from an older Triton: '#triton_gpu.blocked' (the triton_gpu / triton_nvidia_gpu dialects are "
           "ttg / ttng since Triton 3.2); the module is not checked (compile it with a current Triton)")])
    assert (second.line, second.num_warps, second.alias_lines, second.refused, second.problems) == (
        6, None, {"c": 5}, None, [])
    assert second.operations[0].types[0].encoding.size_per_thread == (2,)


def test_attributes_are_read_as_triton_reads_them():
    """Keys that Triton's parser ignores are ignored, and amd_mfma's version defaults to 0 (only in TTGIR:
    parse_attribute stays strict by default)."""
    linear = "#ttg.linear<{register = [[0, 1]], lane = [[1, 0]], warp = [], block = [], order = [1, 0]}>"
    mfma = "#ttg.amd_mfma<{warpsPerCTA = [1, 1], instrShape = [32, 32], isTranspose = false}>"
    text = f"#l = {linear}\n#m = {mfma}\nmodule {{\n}}\n"
    (m,) = read_ttgir(text, "lenient.mlir")
    assert m.problems == [] and m.aliases["l"].lane == ((1, 0),)
    assert (m.aliases["m"].version, m.aliases["m"].is_transposed) == (0, False)
    with pytest.raises(ParseError, match="linear: unknown key 'order'"):
        parse_attribute(linear)
    assert parse_attribute(linear, lenient=True) == m.aliases["l"]
    with pytest.raises(ParseError, match="blocked: unknown key 'vec'"):     # Triton rejects this one too
        parse_attribute("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], "
                        "order = [0], vec = 1}>", lenient=True)


def test_alias_only_sections_and_invalid_encodings_are_kept_with_their_lines():
    text = ("#mma = #ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>\n"
            "// -----\n"
            "#bad = #ttg.dot_op<{opIdx = 2, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], "
            "warpsPerCTA = [1, 1], order = [1, 0]}>, kWidth = 2}>\n"
            "#slice = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
            "warpsPerCTA = [4], order = [0]}>}>\n"
            "module {\n"
            "  %0 = arith.constant dense<0> : tensor<4xi32,\n"
            "                                        #bad>\n"
            "}\n")
    first, second = read_ttgir(text, "a.mlir")
    assert first.aliases["mma"].version_minor == 0                   # versionMinor defaults to 0, as in Triton
    assert [(p.line, p.message) for p in second.problems] == [
        (3, "alias #bad: dot_op: opIdx can be 0 or 1, got 2"),
        (4, "alias #slice: slice: the parent layout must have rank >= 2, got 1"),
        (6, "arith.constant: alias '#bad' cannot be used: its definition on line 3 was rejected")]


B = "#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n"


@pytest.mark.parametrize("text, problems, ops", [
    pytest.param(   # the file ends inside a type: the unclosed type is the problem
        B + "module {\n  tt.func @f() {\n    %0 = arith.constant dense<0.0> : tensor<128xf32, #b>\n"
            "    %1 = arith.addf %0, %0 : tensor<128xf32, #ttg.bl",
        [(5, "arith.addf: unbalanced brackets in type starting 'tensor<128xf32, #ttg.bl'")],
        [(3, "tt.func", None, 0), (4, "arith.constant", 0, 1), (5, "arith.addf", 0, 0)], id="truncated-in-a-type"),
    pytest.param(   # the file ends between statements: the innermost unclosed region is the problem
        B + "module {\n  tt.func @f() {\n    scf.for %i = %a to %b step %c : i32 {\n"
            "      %0 = arith.constant dense<0.0> : tensor<128xf32, #b>\n",
        [(4, "scf.for: unexpected end of input: the region opened on this line is not closed")],
        [(3, "tt.func", None, 0), (4, "scf.for", 0, 0), (5, "arith.constant", 1, 1)], id="truncated-in-regions"),
    pytest.param(   # an unknown alias: the problem is on the line of the type, not of the operation
        B + "module {\n  %0 = tt.splat %p : !tt.ptr<f32>\n      -> tensor<128x!tt.ptr<f32>, #nowhere>\n"
            "  %1 = arith.constant dense<0> : tensor<128xi32, #b>\n}\n",
        [(4, "tt.splat: unknown alias '#nowhere' (at column 1)")],
        [(3, "tt.splat", None, 0), (5, "arith.constant", None, 1)], id="unknown-alias"),
    pytest.param(   # mismatched brackets: the function's region is still opened, what follows is read
        B + "module {\n  tt.func @f(%a: tensor<128xf32, #b)) {\n    %0 = arith.addf %a, %a : tensor<128xf32, #b>\n"
            "  }\n  tt.func @g() {\n    tt.return\n  }\n}\n",
        [(3, "tt.func: mismatched brackets: ')' at column 36 does not close '<' (line 3, column 24)")],
        [(3, "tt.func", None, 0), (4, "arith.addf", 0, 1), (6, "tt.func", None, 0), (7, "tt.return", 2, 0)],
        id="mismatched-brackets"),
    pytest.param(   # an alias left open: the next definition starts a new statement
        "#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}\n"
        "module {\n  %0 = arith.constant dense<0> : tensor<4xi32, #ttg.blocked<{sizePerThread = [1], "
        "threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>\n}\n",
        [(1, "alias #b: mismatched brackets")], [(3, "arith.constant", None, 1)], id="unclosed-alias"),
    pytest.param(
        B + "module {\n}\n}\nwhatever this is\n%0 = arith.constant dense<0> : tensor<128xi32, #b>\n",
        [(4, "'}' closes no region or bracket"), (5, "cannot read 'whatever this is' as an operation")],
        [(6, "arith.constant", None, 1)], id="stray-brace-and-text"),
])
def test_bad_input_becomes_a_problem_on_its_line_and_the_rest_is_read(text, problems, ops):
    modules = read_ttgir(text, "bad.ttgir")
    assert [(p.line, p.message) for m in modules for p in m.problems] == problems
    assert [(op.line, op.name, op.parent, sum(t.encoding is not None for t in op.types))
            for m in modules for op in m.operations] == ops


def test_one_element_shared_buffers_are_valid_in_ttgir():
    """Triton's C++ lowering accepts a one-element shared layout (mbarriers); only Gluon's Python rejects it."""
    text = ("#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n"
            "module {\n  %0 = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared, #ttg.shared_memory, mutable>\n}\n")
    (m,) = read_ttgir(text, "bar.ttgir")
    ref = m.operations[0].result_types[0]
    L = lower(ref.encoding, ref.shape)
    assert (L.in_dim_size("offset"), L.out_dim_size("dim0"), m.problems) == (1, 1, [])


def test_empty_input_gives_one_empty_module():
    (m,) = read_ttgir("", "empty.ttgir")
    assert (m.line, m.operations, m.problems, m.attributes) == (1, [], [], {})


# ---------------------------------------------------------------- source locations

LOCATED = """\
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#loc = loc("/home/u/kernel.py":10:1)
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func @k(%x: tensor<128xf32, #blocked> loc("x"(#loc))) {
    %0 = arith.addf %x, %x : tensor<128xf32, #blocked> loc(#loc3)
    %1 = arith.mulf %x, %x : tensor<128xf32, #blocked> loc("/home/u/kernel.py":14:7)
    %2 = arith.subf %x, %x : tensor<128xf32, #blocked> loc(#loc8)
    %3 = arith.divf %x, %x : tensor<128xf32, #blocked> loc(#loc9)
    %4 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32 loc(unknown), %b: f32 loc(unknown)):
      %5 = arith.maxnumf %a, %b : f32 loc(#loc10)
      tt.reduce.return %5 : f32 loc(#loc10)
    }) : (tensor<128xf32, #blocked>) -> f32 loc(#loc7)
    %6 = arith.negf %x : tensor<128xf32, #blocked> loc(fused<"metadata">[unknown, #loc3, #loc4])
    %7 = arith.absf %x : tensor<128xf32, #blocked> loc(#loc1)
    %8 = math.exp %x : tensor<128xf32, #blocked> loc("/home/u/kernel.py":16:3 to 16:9)
    %9 = math.log %x : tensor<128xf32, #blocked> loc(#nowhere)
    %10 = math.sin %x : tensor<128xf32, #blocked>
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc1 = loc(unknown)
#loc2 = loc("/opt/py/site-packages/triton/language/standard.py":190:11)
#loc3 = loc("/home/u/kernel.py":12:5)
#loc4 = loc("/home/u/kernel.py":13:9)
#loc5 = loc("/home/u/helpers.py":3:12)
#loc6 = loc("m"(#loc4))
#loc7 = loc(callsite(#loc2 at #loc6))
#loc8 = loc(callsite(#loc5 at #loc6))
#loc9 = loc("y"(#loc8))
#loc10 = loc(callsite(#loc2 at #loc7))
"""


def test_each_operation_has_its_python_source_location():
    """Aliases defined after their use, inline file locations (and ranges), names (the inner location),
    fused (the first that has a file), callsites (the innermost frame outside Triton's own package),
    unknown and undefined locations (None)."""
    (m,) = read_ttgir(LOCATED, "loc.ttgir")
    assert m.problems == []
    locs = {op.name: op.loc for op in m.operations}
    u = "/home/u/kernel.py"
    assert locs == {
        "tt.func": (u, 10, 1), "arith.addf": (u, 12, 5), "arith.mulf": (u, 14, 7),
        "arith.subf": ("/home/u/helpers.py", 3, 12),    # a user helper inlined: the callee's line
        "arith.divf": ("/home/u/helpers.py", 3, 12),    # named callsite
        "tt.reduce": (u, 13, 9),                        # callee in triton/language: its caller's line
        "arith.maxnumf": (u, 13, 9),                    # two library frames deep
        "tt.reduce.return": (u, 13, 9),
        "arith.negf": (u, 12, 5), "arith.absf": None, "math.exp": (u, 16, 3), "math.log": None,
        "math.sin": None, "tt.return": (u, 10, 1)}
    # function arguments' own locations are not the function's; block headers carry none
    assert m.operations[0].loc == (u, 10, 1)


def test_locations_of_real_triton_output():
    """tests/verify/ttgir/small_dot_locs.ttgir: asm["ttgir"] of Triton 3.9, which prints locations."""
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "verify" / "ttgir" / "small_dot_locs.ttgir"
    (m,) = read_ttgir(path.read_text(), "small_dot_locs.ttgir")
    assert m.problems == [] and m.target == "cuda:80"
    f = "/tmp/locs/small_dot.py"
    got = {(op.line, op.name): op.loc for op in m.operations}
    assert got[(33, "tt.func")] == (f, 12, 1)
    assert got[(34, "arith.constant")] is None                      # loc(#loc1) = loc(unknown)
    assert got[(49, "ttg.local_alloc")] == (f, 16, 9)              # a = tl.load(...)
    assert got[(55, "ttg.local_alloc")] == (f, 17, 9)
    assert got[(56, "ttg.local_load")] == (f, 16, 9)
    assert got[(58, "tt.dot")] == (f, 18, 9)
    assert got[(59, "arith.mulf")] == (f, 8, 12)                   # inside scale(), inlined at line 19
    assert got[(60, "tt.reduce")] == (f, 20, 9)                    # tl.sum: standard.py's frames skipped
    assert got[(62, "arith.addf")] == (f, 20, 9)
    assert got[(67, "ttg.convert_layout")] == (f, 21, 5)
    assert sum(op.loc is not None for op in m.operations) == len(m.operations) - 3


# ---------------------------------------------------------------- IR of an older Triton: refused

OLD = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func @k(%x: tensor<64x64xf16, #blocked>) {
    %0 = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #ttg.shared_memory>
    tt.return
  }
}
"""
NOTE = "the module is not checked (compile it with a current Triton)"


@pytest.mark.parametrize("old, new, line, message", [
    ("#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [1, 0]}>",
     "#ttg.shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [1, 0], hasLeadingOffset = false}>", 2,
     "'#ttg.shared' (split into #ttg.swizzled_shared and #ttg.nvmma_shared (hasLeadingOffset) in Triton 3.3)"),
    ("#ttg.blocked<{sizePerThread = [1, 8]", "#triton_gpu.blocked<{sizePerThread = [1, 8]", 1,
     "'#triton_gpu.blocked' (the triton_gpu / triton_nvidia_gpu dialects are ttg / ttng since Triton 3.2)"),
    ('"ttg.num-warps"', '"triton_gpu.num-warps"', 3,
     "module attribute 'triton_gpu.num-warps' (the triton_gpu / triton_nvidia_gpu dialects are ttg / ttng "
     "since Triton 3.2)"),
    ("%0 = ttg.local_alloc", "%0 = triton_gpu.local_alloc", 5,
     "operation 'triton_gpu.local_alloc' (the triton_gpu / triton_nvidia_gpu dialects are ttg / ttng since "
     "Triton 3.2)"),
    ("-> !ttg.memdesc<", "-> !tt.memdesc<", 5, "'!tt.memdesc' (memory descriptors are !ttg.memdesc since Triton 3.2)"),
])
def test_ir_of_an_older_triton_is_refused_with_the_construct_and_its_line(old, new, line, message):
    assert read_ttgir(OLD, "new.ttgir")[0].problems == []
    (m,) = read_ttgir(OLD.replace(old, new, 1), "old.ttgir")
    assert [(p.line, p.message) for p in m.problems] == [(line, f"IR from an older Triton: {message}; {NOTE}")]
    assert (m.operations, m.op_counts, m.aliases) == ([], {}, {})       # nothing of it is checked


def test_modern_ir_is_not_refused():
    """Constructs that only look old: nvidia_mma keeps versionMajor, #ttg.shared_memory, #ttg.shared_linear,
    a loc path or string mentioning triton_gpu; amd_mfma's old versionMajor/versionMinor, which today's Triton
    ignores (its own lit tests, Conversion/amd/tritongpu_to_llvm.mlir, still write them): read as Triton reads
    them, version 0."""
    text = """\
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#mfma = #ttg.amd_mfma<{versionMajor = 4, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [32, 32, 8], \
isTransposed = true}>
#sl = #ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 0]]}, alignment = 16>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.note = "from triton_gpu.py"} {
  %0 = ttg.local_alloc : () -> !ttg.memdesc<4x4xf16, #sl, #smem, mutable> loc("/x/triton_gpu/#ttg.shared<.py":1:2)
}
"""
    (m,) = read_ttgir(text, "new.ttgir")
    assert (m.refused, m.problems, m.aliases["mfma"].version) == (None, [], 0)
    assert m.operations[0].loc == ("/x/triton_gpu/#ttg.shared<.py", 1, 2)


# ---------------------------------------------------------------- constructs seen in Triton's lit tests

def test_nvws_partitions_without_arguments_continue_their_operation():
    text = """\
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func @f() {
    nvws.warp_group
    partition0  num_warps(8) {
      nvws.warp_group.return
    }
    partition1 num_warps(4) {
      nvws.warp_group.return
    }
    tt.return
  }
}
"""
    (m,) = read_ttgir(text, "ws.mlir")
    assert m.problems == []
    assert [(op.name, op.line, op.parent, op.region) for op in m.operations] == [
        ("tt.func", 2, None, None), ("nvws.warp_group", 3, 0, 0), ("nvws.warp_group.return", 5, 1, 0),
        ("nvws.warp_group.return", 8, 1, 1), ("tt.return", 10, 0, 0)]


def test_operands_on_a_line_of_their_own_continue_the_operation():
    text = """\
tt.func public @fn(%arg0: tensor<128xf32>, %arg1: tensor<64xf32>) {
    %a = tt.elementwise_inline_asm ""
      {constraints = "=r,r,r", packed_element=1:i32, pure=true}
      %arg0, %arg1: tensor<128xf32>, tensor<64xf32> -> tensor<128xf32>
    %b, %c = "use"(%a) : (tensor<128xf32>) -> (f32, f32)
    tt.return
}
"""
    (m,) = read_ttgir(text, "asm.mlir")
    asm = m.operations[1]
    assert m.problems == [] and [op.name for op in m.operations] == [
        "tt.func", "tt.elementwise_inline_asm", "use", "tt.return"]
    assert (asm.line, asm.end_line, asm.operands, [t.shape for t in asm.types]) == (
        2, 4, ["%arg0", "%arg1"], [[128], [64], [128]])


def test_llvm_pointer_and_buffer_types_are_not_memdescs():
    text = """\
module {
  llvm.func @f(%p: !llvm.ptr<1>) {
    %r = rocdl.make.buffer.rsrc %p, %a, %b, %c : <1> to <8>
    llvm.return
  }
}
"""
    (m,) = read_ttgir(text, "llvm.mlir")
    assert m.problems == [] and all(op.types == [] for op in m.operations)


GLUON = """\
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#auto = #gluon.auto_encoding
#dpas = #ttig.dpas<{repeatCount = 8, systolicDepth = 8, executionSize = 16, opsPerChan = 2, threadsPerWarp = 16}>
module attributes {"ttg.num-warps" = 4 : i32} {
  %0 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #gluon.auto_encoding>
  %1 = gluon.set_auto_layout %0 : tensor<32xi32, #auto> -> tensor<32xi32, #blocked>
  %2 = math.sin %x : tensor<32xf32, #gluon.coalesced_encoding>
  %3 = arith.addf %y, %y : tensor<8x16xf32, #dpas>
  %4 = arith.addf %z, %z : tensor<8x16xf32, #ttig.subgroup_2d_block<{}>>
  %5 = arith.addf %w, %w : tensor<8x16xf32, #mydialect.layout<1>>
}
"""


def test_encodings_layoutcheck_does_not_support_are_marked_not_problems():
    (m,) = read_ttgir(GLUON, "gluon.mlir")
    assert m.problems == []
    refs = [t for op in m.operations for t in op.types]
    assert [(t.encoding_text, t.encoding, t.unsupported) for t in refs if t.encoding is None] == [
        ("#gluon.auto_encoding", None, "a Gluon auto encoding: the layout is not chosen yet"),
        ("#auto", None, "a Gluon auto encoding: the layout is not chosen yet"),
        ("#gluon.coalesced_encoding", None, "a Gluon coalesced encoding: the layout is not chosen yet"),
        ("#dpas", None, "an Intel encoding (#ttig.dpas): not supported"),
        ("#ttig.subgroup_2d_block<{}>", None, "an Intel encoding (#ttig.subgroup_2d_block): not supported"),
        ("#mydialect.layout<1>", None, "an encoding of the mydialect dialect (#mydialect.layout): not supported")]
    assert [t.encoding.kind for t in refs if t.encoding is not None] == ["blocked"]
    assert all(t.unsupported is None for t in refs if t.encoding is not None)


@pytest.mark.parametrize("type_text, message", [
    ("tensor<4x32xf32, #b>", "type 'tensor<4x32xf32, #b>' has rank 2 but its encoding #b has rank 1"),
    ("tensor<*xf32, #b>", "type 'tensor<*xf32, #b>': dimension '*' is not a static size (decimal digits 0-9)"),
    ("tensor<?xf32, #b>", "type 'tensor<?xf32, #b>' has a dynamic dimension, which TritonGPU does not use"),
    ("tensor<1e3xf32, #b>", "type 'tensor<1e3xf32, #b>': dimension '1e3' is not a static size (decimal digits 0-9)"),
    ("tensor<3²xf32, #b>", "type 'tensor<3²xf32, #b>': dimension '3²' is not a static size (decimal digits 0-9)"),
    ("tensor<４xf32, #b>", "type 'tensor<４xf32, #b>': dimension '４' is not a static size (decimal digits 0-9)"),
])
def test_bad_tensor_shapes_are_problems_with_their_line(type_text, message):
    text = ("#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n"
            f"module {{\n  %0 = arith.addf %x, %x : {type_text}\n}}\n")
    (m,) = read_ttgir(text, "shape.mlir")
    assert [(p.line, p.message) for p in m.problems] == [(3, f"arith.addf: {message}")]


def test_a_memdesc_may_have_leading_buffer_dims_beyond_its_encoding():
    text = ("#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n"
            "module {\n  %0 = ttg.local_alloc : () -> !ttg.memdesc<3x64xf32, #s, #ttg.shared_memory, mutable>\n}\n")
    (m,) = read_ttgir(text, "buffers.mlir")
    assert m.problems == [] and m.operations[0].types[0].shape == [3, 64]


# ---------------------------------------------------------------- the reader's quick paths

KERNELS = sorted((pathlib.Path(__file__).resolve().parents[2] / "specs" / "kernels").glob("*.ttgir"))
AWKWARD = """\
#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func @f(%a: tensor<32xf32, #b>, %n: i32) -> tensor<32xf32, #b> {
    %0 = arith.addf %a,
        %a : tensor<32xf32, #b>
    %1 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #b>
    %2:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %0, %y = %0) -> (tensor<32xf32, #b>, tensor<32xf32, \
#b>) : i32 {
      %3 = arith.mulf %x, %y : tensor<32xf32, #b>
      scf.yield %3, %3 : tensor<32xf32, #b>, tensor<32xf32, #b>
    }
    %4 = arith.addf %2#0, %2#1 : tensor<32xf32, #b
    %5 = arith.addf %4, %4 : tensor<32xf32, #b>) -> tensor<32xf32, #b>
    %6 = tt.splat %n : i32 -> tensor<32xi32, #b> loc("k.py":3:4)
    tt.return %5 : tensor<32xf32, #b>
  }
}
"""


def test_a_whole_line_statement_reads_as_the_general_scan_reads_it(monkeypatch):
    """`_Reader.read_whole_line` reads most lines at once (with their bracket pairs kept for `complete`): the
    modules it gives are those of the line-by-line scan, on the kernels and on awkward input."""
    from checker.syntax import ttgir

    texts = [p.read_text() for p in KERNELS] + [MODULES, AWKWARD]
    taken = []
    original = ttgir._Reader.read_whole_line
    monkeypatch.setattr(ttgir._Reader, "read_whole_line",
                        lambda self, *a: taken.append(original(self, *a)) or taken[-1])
    quick = [read_ttgir(t, "k.ttgir") for t in texts]
    monkeypatch.setattr(ttgir._Reader, "read_whole_line", lambda self, *a: False)     # every line scanned
    general = [read_ttgir(t, "k.ttgir") for t in texts]
    assert len(KERNELS) == 15 and taken.count(True) > 1000      # the quick path read most lines of them
    assert quick == general
    (m,) = quick[-1]
    ops = {op.results[0] if op.results else op.name: op for op in m.operations}
    assert ops["%0"].operands == ["%a", "%a"] and ops["%0"].line == 4 and ops["%0"].end_line == 5
    assert ops["%1"].attributes == {"end": 32, "start": 0} and [t.shape for t in ops["%1"].operand_types] == [[32]]
    assert ops["%2#0"].arguments == ["%i", "%x", "%y"] and ops["%2#0"].operands == ["%c0", "%n", "%c1", "%0", "%0"]
    assert [t.shape for t in ops["%2#0"].result_types] == [[32], [32]] and ops["%2#0"].end_line == 10
    assert [(p.line, p.message[:40]) for p in m.problems] == [
        (11, "arith.addf: unbalanced brackets in type "), (12, "arith.addf: mismatched brackets: ')' at ")]
    assert ops["%6"].loc == ("k.py", 3, 4) and [t.shape for t in ops["%6"].result_types] == [[32]]


def test_the_outline_of_a_text_is_its_bracket_pairs_and_top_level_marks():
    from checker.syntax.ttgir import _outline

    top, braces, ends, marks = _outline("%0 = f(%a) {x = 1 : i32} : (i32) -> tensor<4xi32, #s<{d = 1}>>")
    assert top == [("(", 6, 10), ("{", 11, 24), ("(", 27, 32), ("<", 42, 62)] and marks == [25, 33]
    assert braces == [(11, 24), (53, 60)] and ends == {6: 10, 11: 24, 27: 32, 53: 60, 52: 61, 42: 62}
    for text in ["%0 = tt.splat %1 : f32 -> tensor<4x!tt.ptr<f32>, #ttg.slice<{dim = 1, parent = #b}>>",
                 "tt.store %p, %v {cache = 1 : i32} : (tensor<4xf32, #b>) -> ()", "a->b : c", ""]:
        assert _outline(text, closed=True) == _outline(text)
    assert _outline("f(a]) : {b") == ([("(", 1, 5), ("{", 8, 10)], [(8, 10)], {1: 5, 8: 10}, [6])
    for unbalanced in ["tensor<4xf32", "f(a]", "a)", "<{>}"]:
        assert _outline(unbalanced, closed=True) is None


def test_type_and_loc_patterns_find_what_a_leading_lookbehind_finds():
    import re

    from checker.syntax.ttgir import _LOC_CALL, _TYPE_START

    before = {_TYPE_START: re.compile(r"(?<![\w!.$])tensor<|!ttg\.memdesc<|!triton_gpu\.memdesc<|!tt\.tensordesc<"),
              _LOC_CALL: re.compile(r"(?<![\w$.])loc\(")}
    text = ("tensor<1xf32> xtensor<2> .tensor<3> !tensor<4> $tensor<5> _tensor<6> (tensor<7>, tensor<8> "
            "!tt.tensordesc<tensor<9>> !ttg.memdesc<1> !triton_gpu.memdesc<2> loc(#l) xloc(1) .loc(2) $loc(3) "
            "fused[loc(4)] tensorloc(5)")
    for now, then in before.items():
        assert [m.span() for m in now.finditer(text)] == [m.span() for m in then.finditer(text)]
        for start in range(len(text)):
            assert bool(now.match(text, start)) == bool(then.match(text, start))
    assert [m.group() for m in _TYPE_START.finditer(text)] == [
        "tensor<", "tensor<", "tensor<", "!tt.tensordesc<", "tensor<", "!ttg.memdesc<", "!triton_gpu.memdesc<"]
    assert [text[m.start() - 1:m.end() + 1] for m in _LOC_CALL.finditer(text)] == [" loc(#", "[loc(4"]


def test_a_type_occurrence_is_a_copy_with_its_line_and_lists_of_its_own():
    import dataclasses

    from checker.syntax.ttgir import TypeRef, _occurrence

    read = TypeRef("memdesc", [2, 32], "f16", "#s", None, memory_space="#smem", mutable=True,
                   alloc_shape=[4, 32], line=3, unsupported="why")
    ref = _occurrence(read, 7)
    assert ref == dataclasses.replace(read, line=7) and ref.line == 7 and read.line == 3
    assert ref.shape is not read.shape and ref.alloc_shape is not read.alloc_shape
    defaults = TypeRef("tensor", [1], "f32", None, None)
    assert all(getattr(read, f.name) != getattr(defaults, f.name) for f in dataclasses.fields(TypeRef)
               if f.name not in ("encoding", "encoding_text"))     # (every field is exercised)


def test_element_types_are_read_exactly():
    """Issue 27, defect 9: `64x-1xf16` is no shape and `f17` / `bf17` no element type (they read as a 1-bit and a
    17-bit element before); every element type TTGIR writes has its bits."""
    import subprocess
    import sys

    from checker.syntax.ttgir import element_bits
    assert [element_bits(t) for t in ("f16", "bf16", "f32", "f64", "tf32", "i1", "i8", "ui32", "i64", "f8E4M3FN",
                                      "f8E5M2", "f8E4M3FNUZ", "f4E2M1FN", "f6E2M3FN", "f8E8M0FNU", "!tt.ptr<f16>")] == [
        16, 16, 32, 64, 32, 1, 8, 32, 64, 8, 8, 8, 4, 6, 8, 64]
    assert [element_bits(t) for t in ("f17", "bf17", "-1xf16", "i128", "f16x", "")] == [None] * 6
    swz = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    for dims, message in (("64x-1xf16", "dimension '-1' is not a static size"),
                          ("64x64xf17", "'f17' is no element type"),
                          ("64x64xbf17", "'bf17' is no element type")):
        done = subprocess.run([sys.executable, "-m", "checker", "prove", "fits",
                               f"!ttg.memdesc<{dims}, {swz}, #ttg.shared_memory>", "--hardware", "sm90"],
                              capture_output=True, text=True)
        assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr


# ------------------------------------------------------------------ hostile input (issue 27, defects 1-3)

_SOFTMAX = (pathlib.Path(__file__).resolve().parents[1] / "corpus" / "tl_softmax_rows.cuda90.ttgir").read_text()


def test_unclosed_brackets_are_scanned_in_a_window_not_over_the_prefix(monkeypatch):
    """An unclosed '<' is explained from the type name just before it: each search covers at most 256
    characters (it searched the whole prefix once per bracket: 100,000 '<' took 211 s)."""
    from checker.syntax import ttgir
    spans = []
    real = ttgir._TYPE_BEFORE

    class Spy:
        def search(self, text, pos, endpos):
            spans.append(endpos - pos)
            return real.search(text, pos, endpos)
    monkeypatch.setattr(ttgir, "_TYPE_BEFORE", Spy())
    [m] = read_ttgir("#a = #ttg.blocked" + "<" * 5000, "k.ttgir")
    assert (len(spans), max(spans)) == (5000, 256)
    assert [p.message for p in m.problems] == ["alias #a: mismatched brackets"]
    assert ttgir._type_before("%0 = tt.foo : tensor<4x", 20) == 14          # 'tensor' starts at 14


def test_location_aliases_resolve_once_each_and_a_cycle_is_one_located_problem():
    chain = "\n".join(f"#c{i} = loc(callsite(#c{i + 1} at #c{i + 1}))" for i in range(60)) + \
        '\n#c60 = loc("kernel.py":3:4)\n'
    line = next(k for k, ln in enumerate(_SOFTMAX.split("\n"), 1) if "tt.store" in ln)
    text = _SOFTMAX.split("\n")
    text[line - 1] = re.sub(r"loc\(#loc\d+\)$", "loc(#c0)", text[line - 1])
    [m] = read_ttgir(chain + "\n".join(text), "k.ttgir")       # 2^60 frames if each alias were re-read
    assert next(op for op in m.operations if op.name == "tt.store").loc == ("kernel.py", 3, 4)
    cyclic = "#loc90 = loc(callsite(#loc91 at #loc91))\n#loc91 = loc(callsite(#loc90 at #loc90))\n" + _SOFTMAX
    [m] = read_ttgir(cyclic, "k.ttgir")
    assert [(p.line, p.message) for p in m.problems] == [
        (1, "location #loc90 refers to itself through #loc91 -> #loc90: a cycle (no location is taken from it)")]


def test_deeply_nested_locations_give_no_location_not_a_recursion_error():
    deep = 'loc(' + '"n"(' * 1000 + '"kernel.py":1:2' + ')' * 1000 + ')'
    lines = _SOFTMAX.split("\n")
    k = next(k for k, ln in enumerate(lines) if "tt.store" in ln)
    lines[k] = re.sub(r"loc\(#loc\d+\)$", deep, lines[k])
    [m] = read_ttgir("\n".join(lines), "k.ttgir")
    assert m.problems == [] and next(op for op in m.operations if op.name == "tt.store").loc is None
    shallow = 'loc(' + '"n"(' * 20 + '"kernel.py":1:2' + ')' * 20 + ')'
    lines[k] = lines[k][:lines[k].index("loc(")] + shallow
    [m] = read_ttgir("\n".join(lines), "k.ttgir")
    assert next(op for op in m.operations if op.name == "tt.store").loc == ("kernel.py", 1, 2)


def test_a_deep_encoding_declaration_is_validated_not_a_recursion_error():
    import checker
    from checker.errors import CheckerError
    enc = {"kind": "blocked", "size_per_thread": [1], "threads_per_warp": [32], "warps_per_cta": [4], "order": [0]}
    for _ in range(30):
        enc = {"kind": "slice", "dim": 0, "parent": enc}
    with pytest.raises(CheckerError, match="the parent layout must have rank >= 2, got 1"):
        checker.parse_encoding(enc)
