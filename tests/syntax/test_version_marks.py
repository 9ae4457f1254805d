"""checker.syntax.version_marks: the spellings that bound the Triton version of a text, and the choice."""

import pytest

import checker
from checker.encodings.padded_shared import PaddedSharedOrderEncoding
from checker.errors import CheckerError
from checker.syntax.mlir_attr import print_attribute
from checker.syntax.version_marks import bounds, choose, find_marks, section_marks
from checker.versions import TritonVersion

V = TritonVersion


def _names(text):
    return [(m.marker.name, m.line) for m in find_marks(text)]


def test_marks_with_their_lines():
    text = ("#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = true}>\n"
            "module attributes {ttg.target = \"hip:gfx942\"} {\n"
            "  %a_12 = amdgpu.buffer_load %a_ptr[%a_11] : tensor<64x64xf16, #blocked>\n}\n")
    assert _names(text) == [("mfma_two_entry_instr", 1), ("amdgpu_ops", 3), ("buffer_op_value_type", 3)]
    assert bounds(find_marks(text)) == [V(3, 5)]
    # the same spellings as 3.6 prints them: 3.6 or later, and a buffer load typed by its value alone (3.9 writes
    # `!tt.ptr<f16> ->` first) 3.8 or earlier
    newer = text.replace("[16, 16]", "[16, 16, 16]").replace("amdgpu.", "amdg.")
    assert _names(newer) == [("amdg_ops", 3), ("buffer_op_value_type", 3)]
    assert bounds(find_marks(newer)) == [V(3, 6), V(3, 7), V(3, 8)]
    newest = newer.replace(": tensor<", ": !tt.ptr<f16> -> tensor<")
    assert _names(newest) == [("amdg_ops", 3), ("buffer_op_pointer_type", 3)]
    assert bounds(find_marks(newest)) == [V(3, 9)]


def test_an_nvidia_module_without_two_ctas_is_at_most_38():
    locs = '#loc = loc("k.py":3:0)\n'          # Triton's compile output: its #loc aliases
    compiled39 = locs + ('module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
                         '"ttng.two-ctas" = false} {')
    older = locs + ('module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
                    '"ttg.threads-per-warp" = 32 : i32} {')
    amd = locs + 'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942"} {'
    assert _names(compiled39) == [] and _names(amd) == []
    assert _names(older[len(locs):]) == []        # hand-written (no #loc): nothing says which Triton
    selection, notes, warnings = choose(find_marks(older))
    assert (selection.version, selection.reason) == (V(3, 8), "detected") and warnings == []
    assert notes == ['this module\'s syntax is from Triton <= 3.8 (an NVIDIA module compiled by Triton without '
                     '"ttng.two-ctas" (Triton 3.9 writes it on every NVIDIA module)); checking with Triton 3.8 '
                     'semantics']


def test_choose_given_installed_default_and_refusals():
    tmem = find_marks("#t = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, unpacked = true>")
    assert choose([])[0].describe() == "3.9 (default)"
    assert choose(tmem)[0].describe() == "3.5 (detected: tensor_memory_encoding's 'unpacked' (colStride from Triton " \
                                         "3.6), line 1)"
    selection, notes, warnings = choose(tmem, installed=V(3, 6))
    assert selection.describe() == "3.6 (installed)" and notes == []
    assert warnings == ["this module's syntax is from Triton <= 3.5 (tensor_memory_encoding's 'unpacked' (colStride "
                        "from Triton 3.6), line 1), but it is checked with Triton 3.6 semantics (installed)"]
    mixed = find_marks("#t = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, unpacked = true>\n"
                       "#s = #ttg.partitioned_shared<{numPartitions = 2}>")
    with pytest.raises(CheckerError, match=r"mixes the syntax of two Triton releases: tensor_memory_encoding's "
                                           r"'unpacked' .*line 1, Triton <= 3.5\) and #ttg.partitioned_shared") as e:
        choose(mixed)
    assert e.value.line == 2


def test_sections_are_marked_apart():
    text = ("#t = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, unpacked = true>\nmodule {\n}\n"
            "// -----\nmodule {\n}\n")
    assert [(a, b, [m.marker.name for m in mk]) for a, b, mk in section_marks(text)] == [
        (1, 3, ["tmem_unpacked"]), (5, 6, [])]


def test_older_spellings_are_read():
    t = checker.parse_encoding("#ttng.tensor_memory_encoding<blockM = 64, blockN = 128, unpacked = true, "
                               "CTASplitM = 2, CTASplitN = 2>")
    assert (t.col_stride, t.unpacked, t.cga_layout) == (1, True, ((1, 0), (0, 1)))
    assert (t.col_stride_for(16), t.col_stride_for(32), t.col_stride_for(8)) == (2, 1, 4)
    with pytest.raises(CheckerError, match="'CTASplitM' must be a power of two, got 3"):
        checker.parse_encoding("#ttng.tensor_memory_encoding<blockM = 64, blockN = 128, unpacked = true, "
                               "CTASplitM = 3>")
    p = checker.parse_encoding("#ttg.padded_shared<[64:+8] {order = [0, 1]}>")
    assert (isinstance(p, PaddedSharedOrderEncoding)
            and print_attribute(p) == "#ttg.padded_shared<[64:+8] {order = [0, 1]}>")
    full = checker.parse_encoding("#ttg.padded_shared<[64:+8] {order = [0, 1], shape = [32, 64]}>")
    assert checker.lower(p, [32, 64]) == checker.lower(full, [32, 64])
    with pytest.raises(CheckerError, match="must be a permutation of 0..1, got \\[1, 1\\]"):
        checker.parse_encoding("#ttg.padded_shared<[64:+8] {order = [1, 1]}>")


def test_every_marks_needle_is_in_each_of_its_matches_so_the_quick_test_drops_none():
    """find_marks skips a marker's regex where its needle is absent: the needle must be in every match. Checked on
    every TTGIR text of the repository that has a match of some marker, and on one spelling per marker."""
    import pathlib

    from checker.syntax.version_marks import MARKS

    root = pathlib.Path(__file__).resolve().parents[2]
    texts = [p.read_text(errors="replace") for p in sorted((root / "tests").rglob("*.ttgir"))]
    texts += [
        "#t = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, unpacked = true, colStride = 1>",
        "#l = #ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 1, CTASplitM = 2>",
        "#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], "
        "CTAsPerCGA = [1], CTASplitNum = [1], CTAOrder = [0]}>",
        "#m = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], elementType = f16}>",
        "#w = #ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {warp = [[1, 0]]}, warpsPerCTA = [2, 1]}>",
        "#g = #ttg.generic_linear<{register = [], lane = [], warp = [], block = []}>",
        "#p = #ttg.padded_shared<[32:+4] {order = [1, 0]}>\n#q = #ttg.padded_shared<[32:+4] {order = [1, 0], "
        "shape = [64, 64]}>\n#s = #ttg.shared_linear<{offset = []}>\n#r = #ttg.partitioned_shared<{n = 2}>",
        '  %1 = amdgpu.buffer_load %p[%o] : tensor<64xf16>\n  "amdg.async_wait"() : () -> ()',
        '#loc = loc("k.py":1:0)\nmodule attributes {ttg.target = "cuda:90"} {\n  %v = ttg.memdesc_subview %a[%c0]',
        "  %b = ttng.tmem_subslice %a {N = 128 : i32} : !ttg.memdesc<128x256xf32, #tmem, #ttng.tensor_memory>",
    ]
    seen = set()
    for text in texts:
        for marker in MARKS:
            for m in marker.pattern.finditer(text):
                assert marker.needle in m.group(0), (marker.name, m.group(0))
                seen.add(marker.name)
    assert seen == {m.name for m in MARKS}          # every marker matched somewhere, its needle with it
