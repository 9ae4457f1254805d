"""ttng.tmem_subslice across Triton versions: 3.8 and before write {N} (a column window of a 2-D view, a multiple of
its width), 3.9 writes {offset, dim} (change tmem_subslice_offset_dim; checker/properties/tmem_views.py). Every
verdict below is the one Triton's own verifier gives the same module (Triton 3.9.0 parsing it, 2026-12-06); with
Triton 3.9 installed the test asks it again."""

import pytest

import checker
from checker.run.runner import evaluate
from checker.syntax.ttgir import read_ttgir
from checker.ttgir.kernel import kernel_checks
from checker.versions import VersionRequest, parse
from tests.installed_triton import verifier_accepts
from tests.verify.conftest import ROOT

ENC = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 1>"
BLOCK64 = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>"
M64 = "#ttng.tensor_memory_encoding<blockM = 64, blockN = 256, colStride = 1>"
UNPACKED16 = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 2>"


def module(src: str, dst: str, attrs: str, enc: str = ENC, dst_enc: str | None = None, ety: str = "f32") -> str:
    return ('module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", '
            '"ttg.threads-per-warp" = 32 : i32} {\n'
            f"  tt.func public @p(%a: !ttg.memdesc<{src}x{ety}, {enc}, #ttng.tensor_memory, mutable>) {{\n"
            f"    %b = ttng.tmem_subslice %a {{{attrs}}} : !ttg.memdesc<{src}x{ety}, {enc}, #ttng.tensor_memory, "
            f"mutable> -> !ttg.memdesc<{dst}x{ety}, {dst_enc or enc}, #ttng.tensor_memory, mutable, {src}>\n"
            "    tt.return\n  }\n}\n")


# (source shape, result shape, attributes, source encoding, result encoding, element type) -> Triton 3.9 accepts it
CASES = [
    (("128x256", "128x128", "offset = 128 : i32"), True),
    (("128x256", "128x128", "offset = 64 : i32"), True),      # not a multiple of 128: the bits stay in the tile
    (("128x256", "128x64", "offset = 192 : i32"), True),
    (("128x256", "128x128", "offset = 160 : i32"), False),    # 160 + 128 > 256
    (("128x256", "128x128", "offset = 256 : i32"), False),
    (("2x128x256", "1x128x256", "offset = 1 : i32, dim = 0 : i32"), True),     # one buffer of two
    (("2x128x256", "1x128x256", "offset = 2 : i32, dim = 0 : i32"), False),
    (("2x128x256", "2x128x128", "offset = 128 : i32, dim = 2 : i32"), True),
    (("2x128x256", "2x128x64", "offset = 64 : i32, dim = 2 : i32"), True),
    (("2x128x256", "2x128x128", "offset = 128 : i32"), False),   # dim 1 (rows) left out but halved
    (("128x256", "128x128", "offset = 128 : i32, dim = 2 : i32"), False),
    (("128x256", "128x1", "offset = 1 : i32"), True),
    (("128x256", "128x1", "offset = 1 : i32", UNPACKED16, None, "f16"), True),
    (("128x256", "128x1", "offset = 1 : i32", ENC, None, "f16"), False),      # half a 32-bit TMEM column
    (("128x256", "128x2", "offset = 2 : i32", ENC, None, "f16"), True),
    (("128x256", "128x128", "offset = 96 : i32", BLOCK64), True),
    (("128x256", "128x128", "offset = 64 : i32", M64), True),
    (("128x256", "128x128", "offset = 128 : i32", ENC, BLOCK64), False),      # another encoding
    (("128x256", "128x96", "offset = 0 : i32"), False),                       # 96 columns: no memdesc type
]


def verdicts(text: str, version: str | None = None) -> tuple[list[str], list[str]]:
    """The tmem_subslice checks of a module, checked with `version`'s rules (None: as Triton 3.9's, no text given
    for its marks)."""
    request = VersionRequest(given=parse(version)) if version else VersionRequest()
    kc = kernel_checks(read_ttgir(text, "m.ttgir"), "m.ttgir", version=request)
    results = [evaluate(ob) for ob in kc.obligations if ob.property == "tmem_subslice"]
    return [r.status for r in results], [r.explanation for r in results]


@pytest.mark.parametrize("case,accepted", CASES, ids=[" ".join(c[:3]) + (f" {c[5]}" if len(c) > 5 else "")
                                                      for c, _ in CASES])
def test_triton_39_verdicts(case, accepted):
    status, _ = verdicts(module(*case))
    assert status == ["holds" if accepted else "fails"]


def test_the_explanations_name_the_broken_rule():
    assert verdicts(module("128x256", "128x128", "offset = 160 : i32"))[1] == [
        "the offset 160 + width 128 is not inside the source's 256 along dim 1"]
    assert verdicts(module("128x256", "128x1", "offset = 1 : i32", ENC, None, "f16"))[1] == [
        "the offset 1 starts at TMEM column 1 of 16-bit elements, not on a 32-bit column"]
    assert verdicts(module("128x256", "128x96", "offset = 0 : i32"))[1] == [
        "the result's shape [128, 96] must have power-of-2 dims (Triton's memdesc type)"]
    assert verdicts(module("2x128x256", "2x128x128", "offset = 128 : i32"))[1] == [
        "the result must keep the source's size in every dim but 1: dim 2: 128 vs 256; the offset 128 + width 128 is "
        "not inside the source's 128 along dim 1"]
    assert verdicts(module("2x128x256", "2x128x128", "offset = 64 : i32, dim = 2 : i32"))[1] == [
        "the view at offset 64 along dim 2 keeps the source's TMEM layout (TMEM row 0, 32-bit column 64)"]


def test_triton_39_itself_agrees():
    """The table above, asked of the installed Triton 3.9's verifier (parse_mlir_module verifies what it reads)."""
    assert verifier_accepts((module(*case) for case, _ in CASES), "3.9") == [accepted for _, accepted in CASES]


def test_each_spelling_is_read_with_its_version():
    """{N} bounds the module to Triton <= 3.8 and is checked by 3.8's rules (N a multiple of the width);
    {offset} bounds it to >= 3.9. A module checked with the other version's rules is skipped with the reason."""
    old = module("128x256", "128x128", "N = 64 : i32")
    report = checker.verify(old, engine="f2")
    assert report["summary"]["triton_version"] == "3.8"
    (c,) = [c for c in report["checks"] if c["property"] == "tmem_subslice"]
    assert (c["verdict"], c["parameters"]["n"]) == ("fails", 64)
    assert "not a multiple of the result's width 128" in c["explanation"]
    new = module("128x256", "128x128", "offset = 64 : i32")
    report = checker.verify(new, engine="f2")
    assert report["summary"]["triton_version"] == "3.9"
    (c,) = [c for c in report["checks"] if c["property"] == "tmem_subslice"]
    assert (c["verdict"], c["parameters"]["offset"], c["parameters"]["dim"]) == ("holds", 64, 1)
    report = checker.verify(new, engine="f2", triton_version="3.8")
    skips = [s for k in report["summary"]["ttgir"] for s in k["skips"] if s["check"] == "tmem_subslice"]
    assert [s["reason"] for s in skips] == [
        "ttng.tmem_subslice without its N offset (Triton 3.8 writes {N}; {offset, dim} is Triton 3.9's)"]


def test_a_blackwell_epilogue_split_compiled_by_triton_39():
    """Real output: Triton 3.9 subtiles a persistent matmul's split epilogue with two tmem_subslice per store
    (offset 0 and 128 of a 128x256 fp32 accumulator); every one is checked, none skipped (3.8's {N} reader skipped
    all four)."""
    report = checker.verify(str(ROOT / "tests" / "verify" / "ttgir" / "blackwell_epilogue_split.ttgir"), engine="f2")
    got = [(c["source"]["line"], c["verdict"], c["details"]["offset"], c["details"]["tmem_col"])
           for c in report["checks"] if c["property"] == "tmem_subslice"]
    assert got == [(218, "holds", 0, 0), (219, "holds", 128, 128), (244, "holds", 0, 0), (245, "holds", 128, 128)]
    assert [s for k in report["summary"]["ttgir"] for s in k["skips"]] == []
    assert report["summary"]["failed"] == 0


def test_before_38_a_subslice_may_narrow_blockn_and_sit_off_its_width():
    """Triton 3.6 and 3.7 (change tmem_subslice_tile_rules, #7777): the verifier asks only for the source's blockM,
    CTA split and column stride in the result; both accept a result of blockN 128 over a source of 256 and N = 64
    for a 128-wide view (Triton 3.6.0 and 3.7.0 parsed these modules on 2026-12-06). A window past the source's
    columns is a defect all the same; a view that is not 2-D or changes the rows is not modelled."""
    narrow = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>"
    assert verdicts(module("128x256", "128x128", "N = 128 : i32", ENC, narrow), "3.7")[0] == ["holds"]
    assert verdicts(module("128x256", "128x128", "N = 64 : i32"), "3.6")[0] == ["holds"]
    assert verdicts(module("128x256", "128x128", "N = 192 : i32"), "3.7")[1] == [
        "the window N = 192 + width 128 runs past the source's 256 columns"]
    assert verdicts(module("128x256", "128x128", "N = 128 : i32", ENC, narrow), "3.8")[1] == [
        "the source and the result must have the same encoding"]
    assert verdicts(module("128x256", "128x128", "N = 64 : i32"), "3.8")[1] == [
        "the offset N = 64 is not a multiple of the result's width 128"]
    report = checker.verify(module("2x128x256", "2x128x128", "N = 128 : i32"), engine="f2", triton_version="3.7")
    assert [s["reason"] for k in report["summary"]["ttgir"] for s in k["skips"] if s["check"] == "tmem_subslice"] == [
        "Triton 3.7's tmem_subslice of [2, 128, 256] as [2, 128, 128] (not the source's rows, or not 2-D) is not "
        "modelled"]


def test_a_triton_36_epilogue_split_is_read_as_37_and_holds():
    """Its subslices narrow blockN (mark tmem_subslice_new_encoding: Triton <= 3.7), so the module is checked with
    3.7's rules, where they hold; 3.8's rules would call all four errors."""
    path = str(ROOT / "tests" / "verify" / "ttgir" / "blackwell_epilogue_split_triton36.ttgir")
    report = checker.verify(path, engine="f2")
    assert report["summary"]["triton_version"] == "3.7" and report["summary"]["failed"] == 0
    got = [(c["source"]["line"], c["verdict"], c["parameters"]["n"]) for c in report["checks"]
           if c["property"] == "tmem_subslice"]
    assert got == [(219, "holds", 0), (220, "holds", 128), (245, "holds", 0), (246, "holds", 128)]
    forced = checker.verify(path, engine="f2", triton_version="3.8")
    assert [c["source"]["line"] for c in forced["checks"] if c["property"] == "tmem_subslice" and not c["passed"]] \
        == [219, 220, 245, 246]
