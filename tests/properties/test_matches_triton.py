"""verify --differential: every encoding of a module lowered by layoutcheck and by the installed Triton."""

import pathlib

import pytest

import checker

pytest.importorskip("triton")

ROOT = pathlib.Path(__file__).resolve().parents[2]


def matches(report):
    return [c for c in report["checks"] if c["property"] == "matches_triton"]


def skipped(report):
    return [s for k in report["summary"]["ttgir"] for s in k["skips"] if s["check"] == "matches_triton"]


def test_specs_kernels_all_match_triton():
    report = checker.verify(str(ROOT / "specs" / "kernels"), differential=True, engine="f2", jobs=2,
                            only=["*matches_triton*"])
    got = matches(report)
    assert len(got) == 124 and all(c["passed"] for c in got)
    assert report["summary"]["triton_installed"] == "3.9.0"
    assert (report["summary"]["triton_version"], report["summary"]["triton_version_reason"]) == ("3.9", "installed")
    # Triton has no LinearLayout for AMD's rotating shared layout (two local_allocs of the gfx942 kernels)
    assert [s["reason"] for s in skipped(report)] == [
        "Triton has no LinearLayout for it here (ValueError: Unhandled encoding encountered)"] * 2


def test_corpus_all_match_triton():
    report = checker.verify(str(ROOT / "tests" / "corpus"), differential=True, engine="f2", jobs=2,
                            only=["*matches_triton*"])
    got = matches(report)
    assert len(got) == 5480 and all(c["passed"] for c in got), [c["explanation"] for c in got if not c["passed"]][:3]
    assert len(skipped(report)) == 126


def test_a_wrong_lowering_fails_with_both_bases(monkeypatch):
    from checker.properties import matches_triton as mt

    real = mt.layoutcheck_lowering

    def wrong(enc, shape):
        out = real(enc, shape)
        if out.get("lane"):
            out["lane"] = out["lane"][::-1]               # lanes swapped: a deliberately wrong lowering
        return out

    monkeypatch.setattr(mt, "layoutcheck_lowering", wrong)

    report = checker.verify(str(ROOT / "specs" / "kernels" / "vector_add.cuda80.ttgir"), differential=True,
                            engine="f2", only=["*matches_triton*"])
    bad = [c for c in matches(report) if not c["passed"]]
    assert bad and all(c["severity"] == "error" for c in bad)
    text = bad[0]["explanation"]
    assert "layoutcheck and Triton 3.9.0 lower" in text and "differently (in lane)" in text
    assert "layoutcheck: register=" in text and "; Triton: register=" in text
    ours, theirs = bad[0]["details"]["layoutcheck"], bad[0]["details"]["triton"]
    assert ours["lane"] == theirs["lane"][::-1] != theirs["lane"]


def test_an_abort_inside_triton_is_not_modelled_and_leaves_no_file(tmp_path, monkeypatch):
    """Triton 3.9's parser aborts on this gfx1250 WMMA operand layout (SIGABRT in the child that owns Triton's
    context): the lowering is not modelled, and the module the child was parsing goes with the child's folder."""
    import tempfile

    from checker.errors import NotModelled
    from checker.properties import matches_triton as mt

    mt._close()                                           # a child of its own, its folder under tmp_path
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    text = ("#ttg.dot_op<{opIdx = 1, parent = #ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {}, "
            "instrShape = [16, 16, 32]}>, kWidth = 8}>")
    with pytest.raises(NotModelled, match=r"Triton aborted on it \(exit status -6\)"):
        mt.triton_lowering(text, False, (16, 32), "f16", mt.module_attributes("hip:gfx1250", 1, 32, 1))
    assert list(tmp_path.iterdir()) == []
    # the next request starts a new child, which answers, and closing it removes its folder too
    ok = mt.triton_lowering("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], "
                            "order = [1, 0]}>", False, (16, 32), "f16", mt.module_attributes("cuda:90", 1, 32, 1))
    assert ok == {"register": [[0, 1], [0, 2], [4, 0], [8, 0]], "lane": [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]],
                  "warp": [], "block": [], "shape": [16, 32]}
    assert len(list(tmp_path.iterdir())) == 1
    mt._close()
    assert list(tmp_path.iterdir()) == []
