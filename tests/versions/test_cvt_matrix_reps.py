"""A convert_layout through shared memory before and after Triton 3.6 (change cvt_matrix_keeps_vector_reps, #8655:
ldmatrix / stmatrix) and 3.8 (cvt_scratch_per_cta, #9317: multi-CTA kernels). A 4-D permute Triton 3.5.1
compiled for cuda:90 (tests/verify/ttgir/permute4d_cuda90_triton35.ttgir): Triton 3.5.1's metadata.shared is 2048
and its PTX at the conversion 4 stmatrix.x4 + 4 ldmatrix.x4.trans per warp; Triton 3.6.0 compiles the same kernel
to 4096 bytes, 4 st.shared.v4.b32 + 4 ldmatrix.x4 per warp (both read 2026-12-07)."""

import pytest

import checker
from tests.verify.conftest import ROOT

KERNEL = str(ROOT / "tests" / "verify" / "ttgir" / "permute4d_cuda90_triton35.ttgir")


def _figures(report):
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    (cvt,) = [c for c in report["checks"] if c["property"] == "conversion_cost"]
    d = cvt["details"]
    return (budget["details"]["kernel_bytes"], budget["details"]["exact"], budget["severity"], cvt["source"]["line"],
            d["scratch_bytes"], d["reps"], d["store"]["asm"], d["store"]["instructions_per_warp"], d["load"]["asm"],
            d["load"]["instructions_per_warp"])


@pytest.mark.parametrize("version, expected", [
    ("3.5", (2048, True, "error", 60, 2048, 4, "stmatrix.x4", 4, "ldmatrix.x4.trans", 4)),
    ("3.6", (4096, True, "error", 60, 4096, 2, "st.shared.b128", 4, "ldmatrix.x4", 4)),
    ("3.9", (4096, True, "error", 60, 4096, 2, "st.shared.b128", 4, "ldmatrix.x4", 4)),
])
def test_each_release_allocates_and_moves_as_its_compiler_did(version, expected):
    assert _figures(checker.verify(KERNEL, engine="both", triton_version=version)) == expected


def test_left_to_its_syntax_the_kernel_gets_the_larger_figure_as_an_estimate():
    """The module's spelling allows Triton 3.5 to 3.8 (checked as 3.8); 3.5 sizes the conversion's scratch the other
    way, so the kernel's figure is the larger, 3.8's, marked as an estimate (a warning, never an error) that says
    what 3.5 takes."""
    report = checker.verify(KERNEL, engine="f2")
    assert report["summary"]["triton_version"] == "3.8"
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    d = budget["details"]
    assert (d["kernel_bytes"], d["exact"], budget["severity"]) == (4096, False, "warning")
    assert d["uncertain"] == [
        "the module's syntax allows other releases than 3.8, whose conversions through shared memory take other "
        "scratch: Triton 3.5 takes 2048 bytes, where 3.8 takes 4096 (change cvt_matrix_keeps_vector_reps; give "
        "--triton-version for the exact figure)"]


MULTI_CTA = str(ROOT / "tests" / "verify" / "ttgir" / "dot_f64_2cta_cuda90_triton36.ttgir")


@pytest.mark.parametrize("version, expected", [("3.6", 8192), ("3.7", 8192), ("3.8", 4096), ("3.9", 4096)])
def test_a_multi_cta_conversion_takes_the_whole_tile_before_38(version, expected):
    """Change cvt_scratch_per_cta (#9317): Triton 3.6.0 and 3.7.0 give this 2-CTA fp64 dot 8192 bytes (its result's
    conversion takes the whole 32x32 tile in each CTA); from 3.8 the conversion's scratch is one CTA's half. The
    conversion's instructions are the same in both (3.6.0's PTX: 2 st.shared.v2.b64 and 2 ld.shared.v2.b64 per
    warp at it)."""
    report = checker.verify(MULTI_CTA, engine="both", triton_version=version)
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    (cvt,) = [c for c in report["checks"] if c["property"] == "conversion_cost"]
    d = cvt["details"]
    assert (d["scratch_bytes"], d["store"]["asm"], d["store"]["instructions_per_warp"], d["load"]["asm"],
            d["load"]["instructions_per_warp"]) == (expected, "st.shared.b128", 2, "ld.shared.b128", 2)
    assert (budget["details"]["kernel_bytes"], budget["details"]["exact"]) == (max(expected, 6144), True)


def test_left_to_its_syntax_a_multi_cta_kernel_gets_the_whole_tile_as_an_estimate():
    report = checker.verify(MULTI_CTA, engine="f2")
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    d = budget["details"]
    assert (report["summary"]["triton_version"], d["kernel_bytes"], d["exact"], budget["severity"]) == (
        "3.8", 8192, False, "warning")
    assert d["uncertain"] == [
        "the module's syntax allows other releases than 3.8, whose conversions through shared memory take other "
        "scratch: Triton 3.5 to 3.7 take 8192 bytes, where 3.8 takes 6144 (changes cvt_matrix_keeps_vector_reps, "
        "cvt_scratch_per_cta; give --triton-version for the exact figure)"]
