"""A gfx1250 kernel compiled by Triton 3.6.0 (tests/verify/ttgir/mx_gemm_fp8_gfx1250_triton36.ttgir): its
amd_wmma is spelled with warpsPerCTA (Triton <= 3.6; ctaLayout from 3.7, PR #8946), which was refused
("amd_wmma: missing key 'ctaLayout'"). It is read, detected as 3.6 and every check of it runs."""

import json

FIXTURE = "tests/verify/ttgir/mx_gemm_fp8_gfx1250_triton36.ttgir"


def test_a_triton_36_wmma_kernel_verifies_as_36(verify):
    rc, out, err, reports = verify(FIXTURE, formats="json")
    assert rc == 0, out + err
    report = json.loads((reports / "report.json").read_text())
    s = report["summary"]
    assert (s["triton_version"], s["failed"]) == ("3.6", 0)
    assert s["triton_version_reason"].startswith("detected: amd_wmma's 'warpsPerCTA'")
    (module,) = s["ttgir"][0]["modules"]
    assert (module["hardware"], module["num_warps"]) == ("gfx1250", 4)
    assert s["ttgir"][0]["problems"] == [] and s["ttgir"][0]["skips"] == []
    checks = report["checks"]
    assert len(checks) == s["checks"] >= 100
    dots = [c for c in checks if c["property"] == "scaled_dot"]
    assert len(dots) == 3 and all(c["verdict"] == "holds" for c in dots)
    acc = next(c for c in checks if c["property"] == "well_formed" and c["shape"] == [128, 128]
               and "amd_wmma<{version = 3" in c["operands"]["layout"])
    # read as the ctaLayout #8946 converts warpsPerCTA = [2, 2] to
    assert acc["operands"]["layout"] == ("#ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {warp = [[0, 1], "
                                         "[1, 0]]}, instrShape = [16, 16, 128]}>")
