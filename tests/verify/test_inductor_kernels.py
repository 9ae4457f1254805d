"""PyTorch Inductor's Triton kernels (torch.compile), the most common Triton kernels there are, verified as Triton
compiled them: tests/verify/ttgir/inductor/, with index.json giving each one's origin and Triton's own
metadata.shared.

- ``*.cuda90.triton36.ttgir``: compiled on an H100 by PyTorch 2.11's Inductor with Triton 3.6.0 (TRITON_CACHE_DIR)
  while running tools/inductor_kernels.py's workloads. Round 1 (~65: pointwise ops, norms, softmax and
  cross-entropy forward and backward, cumsum, max-autotune GEMM templates, persistent TMA ones too,
  flex_attention forward and backward, a small Llama training step): of 882 modules, every ``fits[kernel]``
  equals Triton's metadata.shared; the only errors are 28 autotune configurations past sm90's shared memory,
  which Inductor's own log rejects (OutOfResources). Round 2 (~65: Inductor's tuning options, conv and GEMM
  templates with epilogues, BERT / GPT-2 / ViT / MobileNet training steps): of 1,242 modules, every figure
  Triton's; the only errors are 11 tuning candidates past sm90's shared memory (pipelined reductions among them).
- ``*.triton39.ttgir``: the same kernels' Inductor source recompiled with Triton 3.9.0 on a CPU for other targets
  (245 modules over cuda:80/90/100 and gfx942/950/1250, the same outcome).

Each module here is verified with the Triton version that compiled it; the checks, failures and warnings are
pinned, so a change in what layoutcheck says of real Inductor kernels shows up here."""

import json

import pytest

import checker
from tests.verify.conftest import ROOT

FIXTURES = ROOT / "tests" / "verify" / "ttgir" / "inductor"
INDEX = json.loads((FIXTURES / "index.json").read_text())


def _verify(name):
    version = INDEX[name]["triton"].rsplit(".", 1)[0]
    return checker.verify(str(FIXTURES / name), triton_version=version)


@pytest.mark.parametrize("name", sorted(INDEX))
def test_an_inductor_kernel_verifies_as_pinned(name):
    want = INDEX[name]
    report = _verify(name)
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert (budget["details"]["kernel_bytes"], budget["details"]["exact"]) == (want["shared"], True)
    failed = [c for c in report["checks"] if not c["passed"] and c["severity"] == "error"]
    assert all(c["property"] == "fits" for c in failed) and len(failed) == want["failed"]
    assert not [c for c in report["checks"] if c["verdict"] in ("error", "unknown")]
    warnings = [c for c in report["checks"] if not c["passed"] and c["severity"] == "warning"]
    assert (len(report["checks"]), len(warnings)) == (want["checks"], want["warnings"])
    skips = [s["reason"] for k in report["summary"]["ttgir"] for s in k["skips"]]
    assert all(r.startswith(("tt.load of a scalar pointer", "tt.atomic_rmw of a scalar pointer")) for r in skips)


def test_the_past_capacity_configurations_are_errors_with_tritons_size():
    for name, capacity in (("mm_persistent_tma_past_capacity.cuda90.triton36.ttgir", 232448),
                           ("pipelined_reduction_candidate_past_capacity.cuda90.triton36.ttgir", 232448),
                           ("tem_flex_attention_past_capacity.gfx942.triton39.ttgir", 65536)):
        (budget,) = [c for c in _verify(name)["checks"] if c["id"].endswith("fits[kernel]")]
        assert budget["verdict"] == "fails" and budget["severity"] == "error"
        assert budget["details"]["kernel_bytes"] == INDEX[name]["shared"] > capacity


def test_an_f32_gemm_tile_load_of_two_vector_runs_is_coalesced():
    """The fp32 template's A/B tile loads hold 8 f32 a thread along K (Triton's Coalesce pass: runs past 128 bits
    for loads): two ld.global.v4.b32 a run, each request at twice its minimum of sectors, the runs at the minimum."""
    report = _verify("mm_f32_two_vector_runs.cuda90.triton36.ttgir")
    runs = [c for c in report["checks"] if c["property"] == "coalesced" and "runs" in c["details"]]
    two = [c for c in runs if c["details"]["runs"]["elements"] == 2 * c["details"]["vec"]]
    assert two and all(c["verdict"] == "holds" for c in two)
    assert {(c["details"]["runs"]["elements"], c["details"]["runs"]["bytes"]) for c in two} == {(8, 32)}
    assert all(c["details"]["sectors"] == 2 * c["details"]["min_sectors"] for c in two)
    # its other tile load holds runs of 16 f32 (four vectors): still a warning, which says the runs fetch each
    # sector once
    (four,) = [c for c in runs if c not in two]
    assert four["verdict"] == "fails" and four["details"]["runs"]["elements"] == 16 and "L1 hits" in four["explanation"]


def test_a_per_channel_load_is_a_broadcast():
    """Batch norm's per-channel parameter, ``in_ptr + (x // 784) % 256``: the same address over runs of the
    vector (AxisInfo constancy), loaded one element at a time, which wastes nothing."""
    report = _verify("poi_batch_norm_channel_broadcast.gfx942.triton39.ttgir")
    broadcast = [c for c in report["checks"] if c["property"] == "coalesced" and c["details"].get("broadcast")]
    assert broadcast and all(c["verdict"] == "holds" and "constancy" in c["parameters"] for c in broadcast)
    assert all("AxisInfo constancy" in c["explanation"] for c in broadcast)
