"""A swizzled scratch tile (a convert_layout's, a cross-warp reduction round's) on AMD spans the target's banks and
lane phases from Triton 3.8 (`conversion_cost.ldst_target`): 32 banks of 4 bytes on gfx942, 64 on gfx950 and
gfx1250, the lanes one phase serves from the bank count, ds_read_b128's lane order for 128-bit loads. Figures are
Triton 3.9.0's metadata.shared for the same TTGIR compiled for each target on CPU (3.8.0 gives the same, 3.6.0 32
banks' figures); FlagGems' radix-sort histogram on gfx950 took 256 bytes where fits[kernel] said 128 exactly."""

import pytest

import checker
from checker.encodings import lower
from checker.properties.conversion_cost import LdSt, ldst_target, scratch_elements
from checker.properties.reduction import scratch_bytes
from checker.syntax.mlir_attr import parse_attribute
from checker.versions import using
from tests.verify.conftest import ROOT


def _blocked(spt, tpw, wpc, order="1, 0"):
    return parse_attribute(f"#ttg.blocked<{{sizePerThread = [{spt}], threadsPerWarp = [{tpw}], "
                           f"warpsPerCTA = [{wpc}], order = [{order}]}}>")


def test_segment_bits_by_target():
    assert [ldst_target(t).segment for t in (None, "sm80", "sm90", "sm100", "gfx942", "gfx950", "gfx1250")] == \
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
        got.append(scratch_bytes(L, axis, [bits], ldst_target(target)))
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
def test_conversion_scratch_per_target(rows, bits, want):
    z = ", ".join(["[0, 0]"] * 4)
    src = lower(_linear(rows, f"[0, 0], [0, 0], {z}", "[0, 1], [0, 2]"), [rows, 4])
    dst = lower(_linear(rows, f"[0, 1], [0, 2], {z}", "[0, 0], [0, 0]"), [rows, 4])
    assert tuple(scratch_elements(src, dst, bits, t) * bits // 8 for t in ("gfx942", "gfx950")) == want


def test_ldst_targets():
    assert ldst_target("gfx942") == LdSt(1024, True, (0, 1, 4))
    assert ldst_target("gfx950") == LdSt(2048, True, (0, 1, 3, 4), reorder_banks=False)
    assert ldst_target("gfx1250") == LdSt(2048, True, (), reorder_banks=False)
    with using("3.8"):          # change ldst_banks_in_order_64
        assert ldst_target("gfx950") == LdSt(2048, True, (0, 1, 3, 4))
    assert ldst_target("sm90") == LdSt(1024, True, ())
    assert ldst_target(None) == LdSt()
    with using("3.7"):
        assert ldst_target("gfx950") == LdSt()
    # the lanes one phase serves: a 64-lane wave of 16-byte accesses over 32 banks (gfx942) drops 3 lane bases,
    # over 64 banks (gfx950) 2; a 16-byte load takes ds_read_b128's lanes
    lanes = [1, 2, 4, 8, 16, 32]
    assert LdSt(1024, True).phase_lanes(lanes, 2) == [1, 2, 4]
    assert LdSt(2048, True).phase_lanes(lanes, 2) == [1, 2, 4, 8]
    assert LdSt().phase_lanes(lanes, 2) == [1, 2, 4, 8]
    assert LdSt(2048, True).phase_lanes(lanes, 2, (0, 1, 3, 4)) == [1, 2, 8, 16]


def test_the_kernel_budget_follows_the_release():
    """The 16x4 i32 conversion in a module: 128 bytes on gfx942, 256 on gfx950 under Triton 3.9, 128 on gfx950 under
    3.6 (32 banks' tiles), each exact."""
    from checker.syntax.ttgir import read_ttgir
    from checker.ttgir.allocation import budget
    z = ", ".join(["[0, 0]"] * 4)
    regs = "[1, 0], [2, 0], [4, 0], [8, 0]"
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
        got.append((b.total, b.exact))
    assert got == [(128, True), (256, True), (128, True)]
