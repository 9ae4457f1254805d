"""AMD kernels Triton 3.8.0 compiled (CPU), read and checked with 3.8's rules (tests/verify/ttgir/*_triton38.ttgir):
3.8 types a buffer load, store or atomic by its value alone (mark buffer_op_value_type; the element type is the
value's), and its padded direct-to-LDS copies whose vector the padding's cap does not bind are checked as 3.9's
(the gap padded_direct_to_lds skips only where the cap binds)."""

import checker
from tests.verify.conftest import ROOT

FIXTURES = ROOT / "tests" / "verify" / "ttgir"


def test_buffer_ops_typed_by_their_value_are_read_and_bound_the_version():
    report = checker.verify(str(FIXTURES / "amd_rmsnorm_bwd_triton38.ttgir"), engine="both")
    (module,) = report["summary"]["ttgir"][0]["modules"]
    assert (report["summary"]["triton_version"], module["triton_version"]["reason"]) == ("3.8", "detected")
    assert module["triton_version"]["detail"].startswith("an AMD buffer load, store or atomic typed by its value alone")
    got = [(c["source"]["line"], c["source"]["op"], c["details"]["instruction"], c["details"]["vec"])
           for c in report["checks"] if c["property"] == "coalesced" and "buffer" in c["source"]["op"]]
    assert got == [(32, "amdg.buffer_load", "buffer_load_dwordx4", 8),
                   (39, "amdg.buffer_load", "buffer_load_dwordx4", 8),
                   (42, "amdg.buffer_load", "buffer_load_dwordx4", 8),
                   (71, "amdg.buffer_store", "buffer_store_dwordx4", 8),
                   (77, "amdg.buffer_atomic_rmw", "buffer_atomic_b32", 1)]
    assert [s["reason"] for k in report["summary"]["ttgir"] for s in k["skips"]] == [
        "tt.load of a scalar pointer or a tensor descriptor (not a tensor of pointers)"]
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert budget["details"]["kernel_bytes"] == 16384            # Triton 3.8's metadata.shared


def test_a_padded_direct_to_lds_copy_the_cap_does_not_bind_is_checked_under_38():
    report = checker.verify(str(FIXTURES / "amd_matmul_direct_to_lds_triton38.ttgir"), engine="both",
                            triton_version="3.8")
    assert [s for k in report["summary"]["ttgir"] for s in k["skips"]] == []
    copies = [c for c in report["checks"] if c["source"]["op"] == "ttg.async_copy_global_to_local"
              and c["property"] == "bank_conflict_free" and c["parameters"]["access"] != "fill_store"]
    assert copies and {c["details"]["mnemonic"] for c in copies} == {"global_load_lds_dwordx4"}
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert (budget["details"]["kernel_bytes"], report["summary"]["failed"]) == (50992, 0)   # 3.8's metadata.shared
