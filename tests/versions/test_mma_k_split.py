"""A tcgen05 MMA whose A operand is split along K across CTAs (change mma_v5_k_split_refused, #8684): Triton 3.5 and
3.6 compile it (tests/verify/ttgir/blackwell_k_split_2cta_triton36.ttgir, a 2-CTA matmul with a transposed A tile),
3.7's verifier refuses it. Under every release it is a defect: each CTA's shared memory holds half of the K its MMA
needs whole; under 3.5/3.6 the finding says their verifier accepts it."""

import pytest

import checker
from tests.verify.conftest import ROOT

KERNEL = str(ROOT / "tests" / "verify" / "ttgir" / "blackwell_k_split_2cta_triton36.ttgir")


@pytest.mark.parametrize("version, why", [
    ("3.6", "A's CGA splits K into 2 CTAs (must be 1): Triton 3.6's verifier accepts it, but each CTA holds 1/2 of "
            "the K its MMA needs whole (change mma_v5_k_split_refused)"),
    ("3.7", "A's CGA splits K into 2 CTAs (must be 1)"),
])
def test_a_k_split_operand_fails_under_every_release(version, why):
    report = checker.verify(KERNEL, engine="f2", triton_version=version)
    got = [(c["source"]["line"], c["verdict"], c["severity"], c["explanation"]) for c in report["checks"]
           if c["property"] == "mma_operands"]
    assert got == [(159, "fails", "error", why), (192, "fails", "error", why)]


def test_a_wgmma_operand_split_along_k_is_a_defect():
    """The Hopper build of the same kernel: wgmma reads its transposed A tile, split along K over the 2 CTAs, from
    its own CTA's shared memory (Triton 3.7.0's lowering asserts on it)."""
    path = str(ROOT / "tests" / "verify" / "ttgir" / "hopper_k_split_2cta_triton36.ttgir")
    report = checker.verify(path, engine="f2", triton_version="3.6")
    assert [(c["source"]["line"], c["verdict"], c["explanation"]) for c in report["checks"]
            if c["property"] == "dot_operands" and not c["passed"]] == [
        (152, "fails", "A's CGA splits K into 2 CTAs: wgmma reads A from its own CTA's shared memory, which holds 1/2 "
                       "of the K it needs (Triton 3.7's lowering asserts on it)")]


def test_a_wgmma_operand_viewed_narrower_than_its_block_is_checked():
    """fla's chunk_gsa_fwd_kernel_inter (Triton 3.9, cuda:90): each K=32 dot becomes two K=16 warp_group_dots over
    16x64 subslices of a 32x64 transposed nvmma_shared buffer with a 64-byte swizzle, narrower along K than the
    layout's block: the K-split rule reads the CGA alone, so every dot_operands check is made and holds (it was
    skipped when the rule lowered the view)."""
    path = str(ROOT / "tests" / "verify" / "ttgir" / "fla_gsa_inter_cuda90_triton39.ttgir")
    report = checker.verify(path, engine="f2")
    assert [(c["source"]["line"], c["verdict"]) for c in report["checks"] if c["property"] == "dot_operands"] == [
        (257, "holds"), (260, "holds"), (265, "holds"), (268, "holds")]
    assert [s for k in report["summary"]["ttgir"] for s in k["skips"] if s["check"] == "dot_operands"] == []
