"""A swizzled scratch tile (a convert_layout's, a cross-warp reduction round's) spans the target's banks: 32 banks of
4 bytes on NVIDIA and gfx942, 64 on gfx950 and gfx1250 (`conversion_cost.segment_bits`). Figures are Triton 3.9.0's
metadata.shared for the same TTGIR compiled for each target on CPU (Triton 3.8.0 gives the same); FlagGems'
radix-sort histogram on gfx950 took 256 bytes where fits[kernel] said 128 exactly."""

import pytest

import checker
from checker.encodings import lower
from checker.properties.conversion_cost import scratch_elements
from checker.properties.reduction import scratch_bytes, segment_bits
from checker.syntax.mlir_attr import parse_attribute
from tests.verify.conftest import ROOT


def _blocked(spt, tpw, wpc, order="1, 0"):
    return parse_attribute(f"#ttg.blocked<{{sizePerThread = [{spt}], threadsPerWarp = [{tpw}], "
                           f"warpsPerCTA = [{wpc}], order = [{order}]}}>")


def test_segment_bits_by_target():
    assert [segment_bits(t) for t in (None, "sm80", "sm90", "sm100", "gfx942", "gfx950", "gfx1250")] == \
        [1024, 1024, 1024, 1024, 1024, 2048, 2048]


# (shape, sizePerThread, warpsPerCTA, axis, bits) -> Triton 3.9.0's bytes on gfx942, gfx950 (wave 64), gfx1250 (32)
CASES = [((16, 1024), "1, 1", "1, 4", 1, 32, (128, 256, 256)),
         ((16, 1024), "1, 1", "1, 4", 1, 16, (128, 128, 128)),
         ((16, 1024), "1, 1", "1, 4", 1, 64, (128, 256, 256)),
         ((8, 512), "1, 2", "1, 8", 1, 64, (128, 256, 256)),
         ((8, 512), "1, 2", "1, 8", 1, 32, (128, 128, 256)),
         ((64, 256), "1, 4", "2, 2", 1, 32, (0, 0, 512)),
         ((512, 64), "4, 1", "8, 1", 0, 16, (128, 256, 256)),
         ((4, 2048), "1, 4", "1, 8", 1, 16, (64, 64, 64))]


@pytest.mark.parametrize("shape, spt, wpc, axis, bits, want", CASES)
def test_reduction_scratch_per_target(shape, spt, wpc, axis, bits, want):
    got = []
    for target, wave in (("gfx942", 64), ("gfx950", 64), ("gfx1250", 32)):
        tpw = f"1, {wave}" if axis == 1 else f"{wave}, 1"
        L = lower(_blocked(spt, tpw, wpc), list(shape))
        got.append(scratch_bytes(L, axis, [bits], segment_bits(target)))
    assert tuple(got) == want


def test_flaggems_histogram_on_gfx950():
    report = checker.verify(str(ROOT / "tests" / "verify" / "ttgir" / "flaggems_sort_hist_gfx950_triton39.ttgir"),
                            engine="both")
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert (budget["details"]["kernel_bytes"], budget["details"]["exact"]) == (256, True)
    assert [(c["source"]["line"], c["details"]["scratch_bytes"], c["details"]["cross_warp_rounds"])
            for c in report["checks"] if c["property"] == "reduction"] == [(77, 256, 1)]
    assert report["summary"]["failed"] == 0


def _linear(rows, lanes, warps):
    regs = ", ".join(f"[{1 << i}, 0]" for i in range(rows.bit_length() - 1))
    return parse_attribute(f"#ttg.linear<{{register = [{regs}], lane = [{lanes}], warp = [{warps}], block = []}}>")


# a convert_layout moving 4 warps' columns into the first lanes (a reduction round written out):
# (rows, bits) -> Triton 3.9.0's bytes on gfx942, gfx950
CONVERSIONS = [(16, 32, (128, 256)), (16, 16, (128, 128)), (16, 64, (128, 256)), (32, 16, (128, 256)),
               (8, 32, (128, 128)), (8, 64, (128, 256)), (8, 16, (64, 64))]


@pytest.mark.parametrize("rows, bits, want", CONVERSIONS)
def test_conversion_scratch_over_each_segment(rows, bits, want):
    """Over 32 banks' segments (gfx942's figure) and over gfx950's 64 (its figure, which the kernel budget takes as
    an estimate where the two differ: `test_a_conversion_that_the_bank_count_changes_is_an_estimate`)."""
    z = ", ".join(["[0, 0]"] * 4)
    src = lower(_linear(rows, f"[0, 0], [0, 0], {z}", "[0, 1], [0, 2]"), [rows, 4])
    dst = lower(_linear(rows, f"[0, 1], [0, 2], {z}", "[0, 0], [0, 0]"), [rows, 4])
    assert tuple(scratch_elements(src, dst, bits, "gfx950", segment=s) * bits // 8 for s in (1024, 2048)) == want


def test_a_conversion_that_the_bank_count_changes_is_an_estimate():
    """Triton 3.9 gives this 16x4 i32 conversion 128 bytes on gfx942 and 256 on gfx950 (64 banks), but a WMMA-to-WMMA
    conversion of a corpus kernel on gfx1250 32 banks' tile: on gfx950 and gfx1250 the budget takes the larger
    figure as an estimate naming both."""
    from checker.syntax.ttgir import read_ttgir
    from checker.ttgir.allocation import budget
    z = ", ".join(["[0, 0]"] * 4)
    regs = "[1, 0], [2, 0], [4, 0], [8, 0]"
    from checker.versions import using
    got = []
    for target, release in (("gfx942", "3.9"), ("gfx950", "3.9"), ("gfx950", "3.6")):
        text = (f"#src = #ttg.linear<{{register = [{regs}], lane = [[0, 0], [0, 0], {z}], warp = [[0, 1], [0, 2]], "
                "block = []}>\n"
                f"#dst = #ttg.linear<{{register = [{regs}], lane = [[0, 1], [0, 2], {z}], warp = [[0, 0], [0, 0]], "
                "block = []}>\n"
                'module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:'
                f'{target}", "ttg.threads-per-warp" = 64 : i32}} {{\n'
                "  tt.func public @k(%p: !tt.ptr<i32>, %v: i32) {\n"
                "    %a = tt.splat %v : i32 -> tensor<16x4xi32, #src>\n"
                "    %c = ttg.convert_layout %a : tensor<16x4xi32, #src> -> tensor<16x4xi32, #dst>\n"
                "    %q = tt.splat %p : !tt.ptr<i32> -> tensor<16x4x!tt.ptr<i32>, #dst>\n"
                "    tt.store %q, %c : tensor<16x4x!tt.ptr<i32>, #dst>\n"
                "    tt.return\n  }\n}\n")
        with using(release):
            [m] = read_ttgir(text, "k")
            b = budget(m)
        got.append((b.total, b.exact, [u.split(":")[0] for u in b.uncertain]))
    # Triton 3.6 spans 32 banks on gfx950 too (change swizzle_spans_target_banks): 128 bytes, exact
    assert got == [(128, True, []), (256, False, ["line 6"]), (128, True, [])]
