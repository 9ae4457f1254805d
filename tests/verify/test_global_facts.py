"""The vector width layoutcheck predicts for every global access of the corpus against what Triton 3.9 emitted
(tests/verify/global_facts.json, written by tools/global_compare.py: PTX ld/st.global, cp.async and atom.global
from Triton's LLVM IR, AMDGCN global_/buffer_ loads, stores, atomics and direct-to-LDS loads, per TTGIR line;
targets cuda:80, cuda:90, cuda:100, gfx942, gfx950, gfx1250). The first tests need no Triton."""

import collections
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FACTS = ROOT / "tests" / "verify" / "global_facts.json"
sys.path.insert(0, str(ROOT / "tools"))

import global_compare  # noqa: E402


def _facts():
    return json.loads(FACTS.read_text())


def test_facts_cover_many_accesses():
    compared, agree, _ = global_compare.agreement(_facts())
    assert compared >= 1300


def test_every_kind_of_access_is_compared_on_its_targets():
    """Buffer ops on the three AMD targets, copies on NVIDIA and on gfx950 / gfx1250, atomics everywhere."""
    got = collections.Counter()
    for name, f in _facts().items():
        for x in f["lines"].values():
            if isinstance(x["emitted_bytes"], int):
                got[name.split(".")[1], x["op"]] += 1
    for target in ("gfx942", "gfx950", "gfx1250"):
        assert got[target, "amdg.buffer_load"] >= 10 and got[target, "amdg.buffer_store"] >= 10, target
        assert got[target, "amdg.buffer_atomic_rmw"] >= 1 and got[target, "tt.atomic_rmw"] >= 1, target
    for target in ("cuda80", "cuda90", "cuda100", "gfx950", "gfx1250"):
        assert got[target, "ttg.async_copy_global_to_local"] >= 10, target
    for target in ("cuda80", "cuda90", "cuda100"):
        assert got[target, "tt.atomic_rmw"] >= 2, target


@pytest.mark.parametrize("name", sorted(_facts()))
def test_predicted_vector_width_is_the_emitted_one(name):
    facts = _facts()[name]
    pred = global_compare.predictions(ROOT / "tests" / "corpus" / name)
    for ln, x in facts["lines"].items():
        assert int(ln) in pred, f"{name}:{ln}: no coalesced check"
        p = pred[int(ln)]
        assert p["vector_bytes"] == x["vector_bytes"], f"{name}:{ln}: prediction changed"
        if isinstance(x["emitted_bytes"], int):
            assert x["emitted_bytes"] == p["vector_bytes"], \
                f"{name}:{ln} {x['op']}: predicted {p['instruction']} ({p['vector_bytes']} B), emitted {x['emitted']}"


def test_compiling_a_fixture_with_triton_agrees():
    pytest.importorskip("triton")
    path = ROOT / "tests" / "corpus" / "tl_softmax_rows.cuda80.ttgir"
    got = global_compare.compare_one(path, "cuda80")
    lines = got["lines"]
    assert lines and all(x["emitted_bytes"] == x["vector_bytes"] == 16 for x in lines.values())


def test_compiling_buffer_ops_with_triton_agrees():
    pytest.importorskip("triton")
    path = ROOT / "tests" / "corpus" / "tl_interleave.gfx1250.ttgir"
    lines = global_compare.compare_one(path, "gfx1250")["lines"]
    assert {x["op"]: (x["instruction"], x["emitted"]) for x in lines.values()} == {
        "amdg.buffer_load": ("buffer_load_b64", {"buffer_load_b64": 1}),
        "amdg.buffer_store": ("buffer_store_b128", {"buffer_store_b128": 1})}


# Hand-written modules for the rules the corpus does not exercise (a copy narrowed by its mask or by its shared
# layout, 16-bit and compare-and-swap atomics): compiled by the installed Triton, every access must agree.
_COPY = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = SVEC, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "TARGET", \
"ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = DIV : i32}) {
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %1 = tt.expand_dims %0 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> \
tensor<1x64xi32, #blocked>
    %2 = tt.broadcast %1 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %3 = tt.splat %n : i32 -> tensor<64x64xi32, #blocked>
    %4 = arith.cmpi slt, %2, %3 : tensor<64x64xi32, #blocked>
    %5 = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %7 = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
    %8 = tt.addptr %7, %2 : tensor<64x64x!tt.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %9 = ttg.async_copy_global_to_local %8, %5 mask %4 : tensor<64x64x!tt.ptr<f16>, #blocked> -> \
<64x64xf16, #shared, #smem, mutable>
    tt.return
  }
}
"""
_ATOMIC = """\
#blocked = #ttg.blocked<{sizePerThread = [1, SPT], threadsPerWarp = [TPW0, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "TARGET", \
"ttg.threads-per-warp" = TPW : i32} {
  tt.func public @k(%p: !tt.ptr<ET> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = DIV : i32}, \
%o: !tt.ptr<ET> {tt.divisibility = 16 : i32}) {
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %1 = tt.expand_dims %0 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> \
tensor<1x64xi32, #blocked>
    %2 = tt.broadcast %1 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %3 = tt.splat %n : i32 -> tensor<64x64xi32, #blocked>
    %4 = arith.cmpi slt, %2, %3 : tensor<64x64xi32, #blocked>
    %7 = tt.splat %p : !tt.ptr<ET> -> tensor<64x64x!tt.ptr<ET>, #blocked>
    %8 = tt.addptr %7, %2 : tensor<64x64x!tt.ptr<ET>, #blocked>, tensor<64x64xi32, #blocked>
    %10 = arith.constant dense<1.0> : tensor<64x64xET, #blocked>
    %11 = ATOMIC : (tensor<64x64x!tt.ptr<ET>, #blocked>, tensor<64x64xET, #blocked>, \
tensor<64x64xLAST, #blocked>) -> tensor<64x64xET, #blocked>
    %20 = tt.splat %o : !tt.ptr<ET> -> tensor<64x64x!tt.ptr<ET>, #blocked>
    %21 = tt.addptr %20, %2 : tensor<64x64x!tt.ptr<ET>, #blocked>, tensor<64x64xi32, #blocked>
    tt.store %21, %11 : tensor<64x64x!tt.ptr<ET>, #blocked>
    tt.return
  }
}
"""
_RMW = "tt.atomic_rmw fadd, acq_rel, gpu, %8, %10, %4"
_CAS = "tt.atomic_cas acq_rel, gpu, %8, %10, %10"
_HAND = [  # (target, template, substitutions, the emitted instruction of the access)
    ("cuda80", _COPY, {"SVEC": "8", "DIV": "4"}, "cp.async.ca.shared.global 8"),           # the mask: 4 fp16
    ("cuda90", _COPY, {"SVEC": "2", "DIV": "16"}, "cp.async.ca.shared.global 4"),          # the shared run: 2
    ("gfx1250", _COPY, {"SVEC": "4", "DIV": "16"}, "global_load_async_to_lds_b64"),
    ("cuda80", _ATOMIC, {"ET": "f16", "SPT": "8", "DIV": "16", "ATOMIC": _RMW},
     "atom.global.gpu.acq_rel.add.noftz.f16x2"),                                           # packed pairs
    ("cuda90", _ATOMIC, {"ET": "bf16", "SPT": "8", "DIV": "16", "ATOMIC": _RMW},
     "atom.global.gpu.acq_rel.add.noftz.v8.bf16"),                                         # vectorized fadd
    ("gfx942", _ATOMIC, {"ET": "f16", "SPT": "2", "DIV": "1", "ATOMIC": _RMW}, "global_atomic_pk_add_f16"),
    ("gfx1250", _ATOMIC, {"ET": "f16", "SPT": "1", "DIV": "16", "ATOMIC": _RMW}, "global_atomic_cmpswap_b32"),
    ("cuda90", _ATOMIC, {"ET": "f32", "SPT": "2", "DIV": "16", "ATOMIC": _CAS}, "atom.global.acq_rel.gpu.cas.b32"),
]


@pytest.mark.parametrize("target,template,subs,emitted", _HAND, ids=[f"{c[0]}-{c[3]}" for c in _HAND])
def test_hand_written_copies_and_atomics_agree_with_triton(tmp_path, target, template, subs, emitted):
    pytest.importorskip("triton")
    wave = 64 if target in ("gfx942", "gfx950") else 32
    text = template.replace("\\\n", "").replace("TARGET", f"hip:{target}" if target.startswith("gfx") else
                                                 f"cuda:{target[4:]}")
    subs = {**subs, "TPW0": str(wave // 8), "TPW": str(wave), "LAST": "ET" if subs.get("ATOMIC") == _CAS else "i1"}
    for key in ("ATOMIC", "SVEC", "SPT", "DIV", "TPW0", "TPW", "LAST", "ET"):
        if key in subs:
            text = text.replace(key, subs[key])
    path = tmp_path / f"hand.{target}.ttgir"
    path.write_text(text)
    lines = global_compare.compare_one(path, target)["lines"]
    got = [x for x in lines.values() if x["op"] != "tt.store"]
    assert len(got) == 1 and emitted in got[0]["emitted"], got
    assert got[0]["emitted_bytes"] == got[0]["vector_bytes"], got
