"""A cross-warp reduction's scratch tile spans the target's banks: 32 banks of 4 bytes on NVIDIA and gfx942, 64 on
gfx950 and gfx1250 (`reduction.segment_bits`). Figures are Triton 3.9.0's metadata.shared for the same TTGIR
compiled for each target on CPU (Triton 3.8.0 gives the same); FlagGems' radix-sort histogram on gfx950 took
256 bytes where fits[kernel] said 128 exactly."""

import pytest

import checker
from checker.encodings import lower
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
