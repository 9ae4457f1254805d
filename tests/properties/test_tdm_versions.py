"""tdm_copy across Triton releases: every probe of tests/properties/tdm_probes.py (one TDM load, store, gather or
scatter on gfx1250; `FUSED`: one fused load of several members) and the verdict each release's own verifier gives
it, written 3.9 / 3.8 / 3.7: "+" accepted, "-" refused, "." not expressible (3.7 has no partitioned_shared).
Triton 3.9.0, 3.8.0 and 3.7.0 parsed these modules (``ir.parse_mlir_module``, which verifies) on 2026-12-07; with
Triton 3.9 installed the test asks it again. Our verdict must be the verifier's, except where the lowering refuses
what the verifier accepts (`LOWERING`)."""


import pytest

from checker.run.runner import evaluate
from checker.syntax.ttgir import read_ttgir
from checker.ttgir.kernel import kernel_checks
from checker.versions import VersionRequest, parse
from tests.installed_triton import verifier_accepts
from tests.properties.tdm_probes import FUSED, PROBES, L, P, fused, module

VERSIONS = ("3.9", "3.8", "3.7")
VERDICTS = {
    'load unswizzled': '+++',
    'load no descriptor layout': '+++',
    'load swizzled': '---',
    'load nvmma': '---',
    'load padded': '+++',
    'load padding differs': '--+',
    'load interval differs': '--+',
    'load interval and padding differ': '--+',
    'load swizzled desc padded buffer': '--+',
    'load padded desc swizzled buffer': '--+',
    'load vec differs': '--+',
    'load order differs': '--+',
    'load padded shape differs': '+++',
    'load padded order differs': '+++',
    'load two pairs': '+++',
    'load interval of 1 dword': '---',
    'load padding of half a dword': '---',
    'load block over 65535': '---',
    'load smaller block': '+++',
    'load 1x64x64 over 64x64 [2, 1, 0]': '+-+',
    'load 1x64x64 over 64x64 [2, 0, 1]': '+-+',
    'load 1x64x64 over 64x64 [1, 2, 0] vs [0, 1]': '+-+',
    'load 1x64x64 over 64x64 [2, 1, 0] vs [0, 1]': '--+',
    'load 1x1x64x64 over 64x64': '+-+',
    'load 64x1x64 over 64x64': '--+',
    'load 2x64x64 over 64x64': '--+',
    'load padded 1x64x64 over 64x64': '+++',
    'load CGA differs': '--+',
    'load partitioned': '++.',
    'load partitioned desc inner': '--.',
    'load partitioned padded': '++.',
    'load partitioned swizzled': '--.',
    'load partitioned nvmma': '--.',
    'load hint 0x3': '+++',
    'load hint 0x5': '+++',
    'load hint 0': '--+',
    'load hint 0x10': '--+',
    'load hint 0x7': '--+',
    'load hint 0x9': '--+',
    'load hint 0x6': '--+',
    'load hint 6 warps': '--+',
    'load hint 32 warps': '--+',
    'load hint partitioned 1 warp': '--.',
    'load hint partitioned 2 warps': '++.',
    'load hint partitioned 2x2 2 warps': '--.',
    'store unswizzled': '+++',
    'store swizzled': '---',
    'store padded interval = inner': '+++',
    'store padded interval < inner': '---',
    'store padded column-major 32x64': '---',
    'store two pairs': '---',
    'store partitioned': '--.',
    'store nvmma': '---',
    'store vec differs': '--+',
    'store padding differs': '--+',
    'store 1x64x64 over 64x64': '+-+',
    'store block over 65535': '---',
    'gather unswizzled': '+++',
    'gather indices over lanes': '--+',
    'gather 12 indices': '---',
    'gather i8': '+++',
    'gather 3-D': '---',
    'gather column-major': '--+',
    'gather swizzled': '---',
    'gather partitioned': '--.',
    'gather 1x64 over 16x64': '+++',
    'gather padded interval = inner': '++-',
    'gather padded interval 32': '++-',
    'gather padded interval 128': '---',
    'gather two pairs': '---',
    'gather padded column-major': '---',
    'gather vec differs': '--+',
    'gather block over 65535': '---',
    'gather 2 CTAs rows': '+++',
    'gather 2 CTAs index broadcast': '--+',
    'gather 2 CTAs index rows buffer columns': '--+',
    'gather 2 CTAs columns': '+++',
    'gather 2 CTAs no index layout': '+++',
    'scatter unswizzled': '+++',
    'scatter indices over lanes': '+++',
    'scatter 12 indices': '---',
    'scatter column-major': '+++',
    'scatter swizzled': '---',
    'scatter 3-D': '---',
    'scatter nvmma': '---',
    'scatter padded interval = inner': '++-',
    'scatter padded interval 32': '---',
    'scatter two pairs': '---',
    'scatter 1x64 over 32x64 padded': '++-',
    'scatter vec differs': '--+',
}

# (probe, version) the verifier accepts and the lowering refuses: what our explanation says
LOWERING = {(name, "3.7"): "the TDM gather lowering refuses more than one CTA (num-ctas 2)"
            for name in VERDICTS if name.startswith("gather 2 CTAs")}


def checks(text: str, version: str):
    kc = kernel_checks(read_ttgir(text, "m.ttgir"), "m.ttgir", version=VersionRequest(given=parse(version)))
    return [evaluate(ob) for ob in kc.obligations if ob.property == "tdm_copy"]


CASES = [(name, v) for name in VERDICTS for v, code in zip(VERSIONS, VERDICTS[name]) if code != "."]


@pytest.mark.parametrize("name,version", CASES, ids=[f"{v} {n}" for n, v in CASES])
def test_our_verdict_is_the_verifiers(name, version):
    accepted = VERDICTS[name][VERSIONS.index(version)] == "+"
    (r,) = checks(module(syntax=version, **PROBES[name]), version)
    if (name, version) in LOWERING:
        assert accepted and r.status == "fails" and r.explanation == LOWERING[name, version]
    else:
        assert r.status == ("holds" if accepted else "fails"), r.explanation


def test_the_table_counts():
    """How many probes each release was asked, and how many it refused."""
    asked = {v: sum(c[i] != "." for c in VERDICTS.values()) for i, v in enumerate(VERSIONS)}
    refused = {v: sum(c[i] == "-" for c in VERDICTS.values()) for i, v in enumerate(VERSIONS)}
    assert (asked, refused) == ({"3.9": 90, "3.8": 90, "3.7": 80}, {"3.9": 57, "3.8": 62, "3.7": 28})


def test_the_explanations_name_the_rule():
    def why(name, version="3.9"):
        return checks(module(syntax=version, **PROBES[name]), version)[0].explanation
    assert why("load interval and padding differ") == (
        "the descriptor's layout and the buffer's must describe the same physical layout ([32:+4] vs [64:+8])")
    assert why("store padded interval < inner") == (
        "a padded TDM store needs the padding interval (32) to equal the block's innermost dim per CTA (64)")
    assert why("gather indices over lanes").startswith(
        "the gather's index layout spreads indices over the lanes of a warp (lane bases [1, 2, 4, 8, 0])")
    assert why("gather 2 CTAs index broadcast") == (
        "the gather's index rows and buffer rows sit in different CTAs: block -> row bases [0] (index) vs [8] (buffer)")
    assert why("gather padded interval 128") == (
        "a TDM gather's padding interval (128) must divide the block's innermost dim (64)")
    assert why("scatter two pairs") == "a TDM scatter takes a single padding interval, got [32:+4, 64:+8]"
    assert why("load hint 0x9") == (
        "warp_used_hint 0x9 is not axis-aligned: its 2 warps differ in 2 warp-id bits, not log2(2)")
    assert why("load hint partitioned 2x2 2 warps") == (
        "warp_used_hint selects 2 warps, which the partitioned buffer's 4 pieces do not divide (one TDM instruction "
        "per hinted copy)")
    assert why("scatter padded interval = inner", "3.7") == "a TDM scatter does not support a padded buffer [64:+8]"
    assert why("gather column-major") == "a TDM gather needs a row-major buffer (order[0] = 1), got order [0, 1]"


def test_the_figures():
    (r,) = checks(module(**PROBES["gather unswizzled"]), "3.9")
    assert r.details == {"block": [16, 64], "indices": 16, "index_registers": 16, "indices_per_instruction": 8,
                         "instructions_per_warp": 2}
    (r,) = checks(module(**PROBES["scatter 1x64 over 32x64 padded"]), "3.9")
    assert r.details == {"block": [1, 64], "indices": 32, "pad_interval_dwords": 32, "pad_amount_dwords": 4,
                         "index_registers": 32, "indices_per_instruction": 8, "instructions_per_warp": 4}


def test_the_lowering_limits_the_verifier_lets_through():
    """Accepted by every verifier, refused by the lowering: a scatter over two CTAs, a pad amount past the
    descriptor's 7-bit field (512 f16 = 256 dwords)."""
    two = dict(PROBES["scatter unswizzled"], ctas=2)
    assert [r.explanation for r in checks(module(**two), "3.9")] == [
        "the TDM scatter lowering refuses more than one CTA (num-ctas 2)"]
    big = L(P([(64, 512)], [64, 64]), P([(64, 512)], [64, 64]), op="store")
    assert [r.explanation for r in checks(module(**big), "3.9")] == [
        "the TDM pad amount field holds 1 to 128 dwords (dwords - 1 in 7 bits), got 256"]


def test_triton_39_itself_agrees():
    """The 3.9 column, asked of the installed Triton 3.9's verifier (parse_mlir_module verifies what it reads)."""
    got = verifier_accepts((module(syntax="3.9", **kw) for kw in PROBES.values()), "3.9")
    assert {name: "+" if ok else "-" for name, ok in zip(PROBES, got)} == \
        {name: code[0] for name, code in VERDICTS.items()}


# amdg.async_tdm_fused_copy_global_to_local (Gluon's tdm.async_load_fused), 3.9 / 3.8 / 3.7 as above: Triton 3.8.0
# and 3.7.0 refuse every one ("custom op 'amdg.async_tdm_fused_copy_global_to_local' is unknown"; 3.7.0 already
# at partitioned_shared, "."). 3.9.0 compares no element widths: an f16 descriptor into an f32 buffer passes.
FUSED_VERDICTS = {
    'fused 2 members': '+--',
    'fused 4 members': '+--',
    'fused 4 members 8 warps interleaved': '+--',
    'fused 1 member': '---',
    'fused 5 members': '---',
    'fused 3 hints for 2 members': '---',
    'fused 2 descriptors into 3 buffers': '---',
    'fused hints overlap': '---',
    'fused hints equal': '---',
    'fused hints do not cover the warps': '+--',
    'fused hint 0': '---',
    'fused hint -1': '---',
    'fused hint not axis-aligned': '---',
    'fused hint of 3 warps': '---',
    'fused hint beyond num_warps': '---',
    'fused 6 warps': '---',
    'fused ranks differ': '---',
    'fused f16 into bf16': '+--',
    'fused f16 into f32': '+--',
    'fused f32 and f16 members': '+--',
    'fused member swizzled': '---',
    'fused member nvmma': '---',
    'fused member vec differs': '---',
    'fused member padding differs': '---',
    'fused member interval of 1 dword': '---',
    'fused member two pairs': '+--',
    'fused member block over 65535': '---',
    'fused member no descriptor layout': '+--',
    'fused member 1x64x64 over 64x64': '+--',
    'fused partitioned 2 warps': '+-.',
    'fused partitioned 1 warp': '--.',
    'fused partitioned 2x2 2 warps': '--.',
    'fused partitioned padded': '+-.',
    'fused partitioned swizzled': '--.',
}
FUSED_CASES = [(name, v) for name in FUSED_VERDICTS for v, code in zip(VERSIONS, FUSED_VERDICTS[name]) if code != "."]


def fused_checks(name: str, version: str = "3.9"):
    return checks(fused(syntax=version, **FUSED[name]), version)


@pytest.mark.parametrize("name,version", FUSED_CASES, ids=[f"{v} {n}" for n, v in FUSED_CASES])
def test_our_fused_verdict_is_the_verifiers(name, version):
    accepted = FUSED_VERDICTS[name][VERSIONS.index(version)] == "+"
    (r,) = fused_checks(name, version)
    assert r.status == ("holds" if accepted else "fails"), r.explanation


def test_the_fused_table_counts():
    asked = {v: sum(c[i] != "." for c in FUSED_VERDICTS.values()) for i, v in enumerate(VERSIONS)}
    refused = {v: sum(c[i] == "-" for c in FUSED_VERDICTS.values()) for i, v in enumerate(VERSIONS)}
    assert set(FUSED_VERDICTS) == set(FUSED)
    assert (asked, refused) == ({"3.9": 34, "3.8": 34, "3.7": 29}, {"3.9": 22, "3.8": 34, "3.7": 29})


def test_the_fused_explanations_name_the_rule_and_the_member():
    def why(name, version="3.9"):
        return fused_checks(name, version)[0].explanation
    assert why("fused 2 members", "3.8") == (
        "Triton 3.8 has no fused TDM load (amdg.async_tdm_fused_copy_global_to_local is Triton 3.9's)")
    assert why("fused 5 members") == "a fused TDM load takes 2 to 4 members, got 5"
    assert why("fused 3 hints for 2 members") == "a fused TDM load needs one warp_used_hint per member, got 3 for 2"
    assert why("fused 2 descriptors into 3 buffers").startswith(
        "a fused TDM load needs as many descriptors as destinations, got 2 and 3; "
        "a fused TDM load needs one warp_used_hint per member, got 3 for 2")
    assert why("fused hints overlap") == (
        "members 0 and 1 share warps (warp_used_hint 0x3 and 0x1, both 0x1): the hints must be pairwise disjoint")
    assert why("fused hint not axis-aligned") == (
        "member 0: warp_used_hint 0x9 is not axis-aligned: its 2 warps differ in 2 warp-id bits, not log2(2); "
        "member 1: warp_used_hint 0x6 is not axis-aligned: its 2 warps differ in 2 warp-id bits, not log2(2)")
    assert why("fused hint -1").startswith(         # the i32 -1 read as the verifier's uint32_t
        "member 0: warp_used_hint 0xffffffff selects warps beyond num_warps = 4; ")
    assert why("fused ranks differ") == "the members' descriptors must have one rank, got [2, 3]"
    assert why("fused member vec differs") == (
        "member 1: the descriptor's layout and the buffer's must describe the same physical layout (their "
        "parameters differ)")
    assert why("fused partitioned 2x2 2 warps") == (
        "member 1: warp_used_hint selects 2 warps, which the partitioned buffer's 4 pieces do not divide (one TDM "
        "instruction per hinted copy)")
    assert why("fused member nvmma").startswith("member 0: the TDM buffer layout must be swizzled_shared, ")


def test_the_fused_figures():
    (r,) = fused_checks("fused 2 members")
    assert r.explanation == ("TDM fused load of 2 members on disjoint warps (0x3, 0xc): each buffer and descriptor "
                             "layout is one Triton's TDM accepts (member 1 padding 4 dwords every 32 dwords)")
    assert r.details == {"members": [{"warp_used_hint": 3, "block": [64, 64]},
                                     {"warp_used_hint": 12, "block": [64, 64], "pad_interval_dwords": 32,
                                      "pad_amount_dwords": 4}]}


def test_triton_39_itself_agrees_on_the_fused_loads():
    got = verifier_accepts((fused(syntax="3.9", **kw) for kw in FUSED.values()), "3.9")
    assert {name: "+" if ok else "-" for name, ok in zip(FUSED, got)} == \
        {name: code[0] for name, code in FUSED_VERDICTS.items()}
