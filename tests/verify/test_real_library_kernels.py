"""Library-style kernels Triton 3.9 compiled (CPU) that the corpus lacked, each with its ops' checks and the kernel's
shared memory against Triton's own metadata.shared (tests/verify/ttgir): a persistent Blackwell matmul whose
epilogue is split (ttng.tmem_subslice {offset}), a row-gather GEMM with a TMA atomic add (ttng.async_tma_gather,
ttng.async_tma_reduce) and a weight-only int8 GEMM copying straight into padded LDS on gfx950."""

import pytest

import checker
from tests.verify.conftest import ROOT

FIXTURES = ROOT / "tests" / "verify" / "ttgir"

# file -> Triton 3.9.0's metadata.shared for it (bytes)
TRITON_SHARED = {"blackwell_epilogue_split.ttgir": 180272, "blackwell_tma_gather_reduce.ttgir": 12296,
                 "amd_w8a16_padded_direct_to_lds.ttgir": 49704}


@pytest.mark.parametrize("name", sorted(TRITON_SHARED))
def test_the_kernels_shared_memory_is_tritons(name):
    report = checker.verify(str(FIXTURES / name), engine="f2")
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert (budget["details"]["kernel_bytes"], budget["details"]["exact"], budget["verdict"]) == (
        TRITON_SHARED[name], True, "holds")
    assert report["summary"]["failed"] == 0
    assert [s for k in report["summary"]["ttgir"] for s in k["skips"]
            if not s["reason"].startswith("tt.load of a scalar pointer")] == []


def test_tma_gather_and_reduce_boxes():
    report = checker.verify(str(FIXTURES / "blackwell_tma_gather_reduce.ttgir"), engine="both")
    got = [(c["source"]["line"], c["source"]["op"], c["verdict"], c["details"]["box"], c["details"]["inner_box_bytes"])
           for c in report["checks"] if c["property"] == "tma_copy"]
    assert got == [(61, "ttng.async_tma_gather", "holds", [1, 64], 128),
                   (63, "ttng.async_tma_copy_global_to_local", "holds", [64, 64], 128),
                   (82, "ttng.async_tma_gather", "holds", [1, 64], 128),
                   (83, "ttng.async_tma_copy_global_to_local", "holds", [64, 64], 128),
                   (92, "ttng.async_tma_reduce", "holds", [32, 32], 128)]
