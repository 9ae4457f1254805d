"""Kernels Triton 3.9 compiled (CPU) that the corpus lacked, each with its ops' checks and the kernel's shared memory
against Triton's own metadata.shared (tests/verify/ttgir): a persistent Blackwell matmul whose epilogue is split
(ttng.tmem_subslice {offset}), a row-gather GEMM with a TMA atomic add (ttng.async_tma_gather, ttng.async_tma_reduce),
a weight-only int8 GEMM copying straight into padded LDS on gfx950, TMA copies of integer tiles (descriptors keep
the sign: si8, ui32), a kernel with tensor memory and no shared buffer, and a tensor compare-and-swap that Triton
turns into amdg.buffer_atomic_cas on gfx942."""

import pytest

import checker
from tests.verify.conftest import ROOT

FIXTURES = ROOT / "tests" / "verify" / "ttgir"

# file -> Triton 3.9.0's metadata.shared for it (bytes)
TRITON_SHARED = {"blackwell_epilogue_split.ttgir": 180272, "blackwell_tma_gather_reduce.ttgir": 12296,
                 "amd_w8a16_padded_direct_to_lds.ttgir": 49704, "hopper_tma_int8_descriptors.ttgir": 16400,
                 "blackwell_tma_u32_descriptor.ttgir": 8200, "blackwell_tmem_only.ttgir": 4,
                 "amd_buffer_atomic_cas.ttgir": 4096, "hopper_scan_argmax_2cta.ttgir": 64,
                 "hopper_scan_argmax_4cta.ttgir": 32, "amd_gluon_tdm_ws_gemm_gfx1250_triton39.ttgir": 21668,
                 "amd_gluon_tdm_ws_persistent_gfx1250_triton39.ttgir": 303384,
                 "triton_kernels_p_matmul_mxfp4_ws_cuda100_triton39.ttgir": 33992}


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


def test_integer_descriptors_keep_their_sign_and_copy_signless_buffers():
    """A descriptor's block is si8 / ui32 where the buffer is i8 / i32: Triton compares signless types, and so does
    the check (it reported "element types differ: descriptor block si8, buffer i8", an error, on every one)."""
    for name, sign in (("hopper_tma_int8_descriptors.ttgir", "si8"), ("blackwell_tma_u32_descriptor.ttgir", "ui32")):
        report = checker.verify(str(FIXTURES / name), engine="f2")
        tma = [c for c in report["checks"] if c["property"] == "tma_copy"]
        assert tma and all(c["verdict"] == "holds" for c in tma), [c["explanation"] for c in tma]
        assert {c["parameters"]["block_type"] for c in tma} == {sign}


def test_tensor_memory_alone_takes_four_bytes_of_shared_memory():
    report = checker.verify(str(FIXTURES / "blackwell_tmem_only.ttgir"), engine="f2")
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert [{k: b[k] for k in ("op", "kind", "bytes", "offset", "what")} for b in budget["details"]["buffers"]] == [
        {"op": "ttng.tmem_alloc", "kind": "scratch", "bytes": 4, "offset": 0,
         "what": "the TMEM base address tcgen05.alloc writes"}]


def test_an_amd_buffer_compare_and_swap_is_priced_one_element_at_a_time():
    """amdg.buffer_atomic_cas (BufferAtomicCASOpConversion: one element a lane per instruction) gets its coalesced
    check like buffer_atomic_rmw (it was skipped as an op without checks): 16 requests of 4 bytes a lane, every
    sector touched once."""
    report = checker.verify(str(FIXTURES / "amd_buffer_atomic_cas.ttgir"), engine="both")
    (cas,) = [c for c in report["checks"] if c["source"]["op"] == "amdg.buffer_atomic_cas"]
    d = cas["details"]
    assert (cas["property"], cas["verdict"], cas["parameters"]["atomic"], cas["parameters"]["atomic_vec"]) == (
        "coalesced", "holds", "cas", 1)
    assert (d["vec"], d["vector_bytes"], d["requests"], d["sectors"], d["min_sectors"]) == (1, 4, 16, 128, 128)


def test_a_descriptor_triton_37_makes_is_read():
    """It was refused (exit 2: "'tensor<64x64xf16, #share' is no element type"); checked with 3.7's rules it gives the
    checks the same kernel compiled by 3.9 gets: the TDM copy into padded LDS among them."""
    report = checker.verify(str(FIXTURES / "amd_tdm_copy_triton37.ttgir"), engine="f2", triton_version="3.7")
    assert [p for k in report["summary"]["ttgir"] for p in k["problems"]] == []
    assert (report["summary"]["checks"], report["summary"]["failed"]) == (26, 0)
    assert [(c["source"]["line"], c["verdict"], c["parameters"]["block"]) for c in report["checks"]
            if c["property"] == "tdm_copy"] == [(22, "holds", [64, 64]), (24, "holds", [64, 64])]
