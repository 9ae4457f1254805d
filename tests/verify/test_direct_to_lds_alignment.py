"""A direct-to-LDS copy whose padded layout starts a wave off the vector's width, in a kernel Triton 3.9 compiled
for gfx950 (tests/verify/ttgir/amd_w8a16_padded_direct_to_lds.ttgir): the wave's lanes are contiguous (1,024 bytes
each), the padding puts wave 1 at byte 1,032. Triton's canLoadDirectToLDS accepts it and emits
global_load_lds_dwordx4; AMD documents no alignment rule for the LDS address of that write, so layoutcheck reports
the misalignment as AMD's LDS misalignments are reported, a warning, never an error it cannot show."""

import checker
from checker.reports.text import finding
from tests.verify.conftest import ROOT

KERNEL = ROOT / "tests" / "verify" / "ttgir" / "amd_w8a16_padded_direct_to_lds.ttgir"


def test_a_padded_wave_start_off_the_width_is_a_warning_on_amd():
    report = checker.verify(str(KERNEL), engine="both")
    assert report["summary"]["failed"] == 0
    bad = [c for c in report["checks"] if c["property"] == "aligned_access" and not c["passed"]]
    assert [(c["source"]["line"], c["severity"], c["parameters"]["access"]) for c in bad] == [
        (80, "warning", "cp.async"), (97, "warning", "cp.async"), (121, "warning", "cp.async")]
    cx = bad[0]["counterexample"]
    assert (cx["lane"], cx["warp"], cx["offset"], cx["byte_address"], cx["vector_bytes"]) == (0, 1, 1024, 1032, 16)
    assert finding(bad[0]) == (
        "misaligned 16-byte access (global_load_lds_dwordx4): lane 0 register 0 of warp 1 at offset 1024 (slot "
        "1032) is byte 1032, 8 past a 16-byte boundary (AMD documents no alignment rule for a direct-to-LDS write; "
        "Triton accepts it)")
