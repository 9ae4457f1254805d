"""checker.versions: the supported Triton versions, the one in force, the changes keyed by version, and how
the public API, the CLI and spec files choose and record it."""

import inspect
import json
import re
import subprocess
import sys

import pytest

import checker
from checker import versions
from checker.errors import CheckerError
from checker.syntax.version_marks import MARKS
from checker.versions import CHANGES, NEWEST, SUPPORTED, TritonVersion, follows, parse, using

from .verify.conftest import ROOT

SMALL = ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], "
         "order = [1, 0]}>")


def test_supported_versions_and_parse():
    assert [str(v) for v in SUPPORTED] == ["3.5", "3.6", "3.7", "3.8", "3.9"] and NEWEST == TritonVersion(3, 9)
    assert parse("3.6") == parse("3.6.0") == parse("3.6.0+git1a2b3c") == parse(" 3.6 ") == TritonVersion(3, 6)
    with pytest.raises(CheckerError, match=r"Triton 3\.4 is not modelled: layoutcheck follows Triton 3\.5, 3\.6"):
        parse("3.4")
    with pytest.raises(CheckerError, match=r"written MAJOR\.MINOR \(e\.g\. 3\.6\), got 'three'") as e:
        parse("three", field="--triton-version")
    assert e.value.field == "--triton-version"


def test_using_is_scoped_and_nests():
    assert versions.active() == NEWEST
    with using("3.6") as v:
        assert v == versions.active() == TritonVersion(3, 6)
        assert not follows("blocked_drops_cut_registers") and not follows("tmem_block_in_dim")
        with using("3.8"):
            assert not follows("blocked_drops_cut_registers") and follows("tmem_block_in_dim")
        with using(None):
            assert versions.active() == TritonVersion(3, 6)
    assert versions.active() == NEWEST and follows("blocked_drops_cut_registers")


def test_every_change_names_its_first_version_its_pr_and_its_code():
    for c in CHANGES.values():
        assert c.since in SUPPORTED[1:], c.name          # the oldest supported version has every older rule
        assert (ROOT / c.follows.split(" ")[0]).is_file(), c.follows
        assert c.what and c.before and (c.pr is None or c.pr > 1000)


def test_the_docs_list_every_change_and_every_mark():
    doc = (ROOT / "docs" / "triton-versions.md").read_text()
    for c in CHANGES.values():
        row = next(line for line in doc.splitlines() if line.startswith(f"| `{c.name}` |"))
        assert f"| {c.since} |" in row and (f"#{c.pr}" in row if c.pr else "not identified" in row)
    for m in MARKS:
        row = next(line for line in doc.splitlines() if line.startswith(f"| `{m.name}` |"))
        assert f"| {m.span()} |" in row


def test_the_keyword_is_in_every_public_signature():
    public = [checker.parse_encoding, checker.lower, checker.verify] + [
        f for n, f in vars(checker.prove).items() if inspect.isfunction(f) and getattr(f, "__wrapped__", None)
        and not n.startswith("_") and f.__module__ == "checker.prove"]
    assert len(public) >= 14
    for f in public:
        p = inspect.signature(f).parameters["triton_version"]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is None, f.__name__


def test_the_keyword_selects_the_semantics_and_is_checked():
    enc = checker.parse_encoding(SMALL)
    assert checker.prove.injective(enc, [64, 1], triton_version="3.8").explanation.startswith(
        "register=1 has a zero basis")
    assert checker.prove.injective(enc, [64, 1], triton_version="3.9").explanation.startswith(
        "warp=2 has a zero basis")
    with pytest.raises(CheckerError) as e:
        checker.lower(SMALL, [64, 1], triton_version="4.0")
    assert str(e.value) == ("argument triton_version: Triton 4.0 is not modelled: layoutcheck follows Triton 3.5, "
                            "3.6, 3.7, 3.8, 3.9")


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "checker", *args], capture_output=True, text=True, input=stdin,
                          cwd=ROOT)


def test_cli_lower_with_a_version_and_a_bad_one():
    done = _cli("lower", SMALL, "--shape", "64x1", "--triton-version", "3.7", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["bases"]["register"] == [[0, 0], [0, 0]]
    done = _cli("lower", SMALL, "--shape", "64x1", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["bases"]["register"] == []
    done = _cli("lower", SMALL, "--shape", "64x1", "--triton-version", "3.10")
    assert done.returncode == 2 and done.stderr == ("layoutcheck: error: argument --triton-version: Triton 3.10 is not "
                                                    "modelled: layoutcheck follows Triton 3.5, 3.6, 3.7, 3.8, 3.9\n")


def test_cli_pasted_text_of_an_older_triton_is_read_with_its_version():
    tmem = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, unpacked = true, CTASplitM = 2>"
    done = _cli("lower", tmem, "--shape", "256x128", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ("layoutcheck: note: this text's syntax is from Triton <= 3.5 (tensor_memory_encoding's "
                           "'unpacked' (colStride from Triton 3.6)); checking with Triton 3.5 semantics\n")
    bases = json.loads(done.stdout)["bases"]
    assert bases["col"][-1] == [128, 0] and bases["block"] == []          # no block in-dim before 3.8
    done = _cli("lower", tmem, "--shape", "256x128", "--json", "--triton-version", "3.9")
    assert done.returncode == 0 and json.loads(done.stdout)["bases"]["block"] == [[128, 0]]
    assert "warning: this text's syntax is from Triton <= 3.5" in done.stderr and "(given)" in done.stderr


MODULE = """#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], \
order = [1, 0]}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, unpacked = true>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", \
"ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%arg0: tensor<64x1xf32, #blocked>) {
    tt.return
  }
}
"""


def test_verify_detects_gives_and_records_the_version(tmp_path):
    path = tmp_path / "old.ttgir"
    path.write_text(MODULE)
    done = _cli("verify", str(path), "--report-dir", str(tmp_path / "r"), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert (f"{path}:3: note: this module's syntax is from Triton <= 3.5 (tensor_memory_encoding's 'unpacked' "
            "(colStride from Triton 3.6)); checking with Triton 3.5 semantics") in done.stderr
    s = json.loads((tmp_path / "r" / "report.json").read_text())["summary"]
    assert s["triton_version"] == "3.5" and s["triton_version_reason"].startswith(
        "detected: tensor_memory_encoding's 'unpacked' (colStride from Triton 3.6), line 2")
    assert s["ttgir"][0]["modules"][0]["triton_version"]["version"] == "3.5"
    assert re.search(r"\(engine both, Triton 3\.5: detected: ", done.stdout)
    done = _cli("verify", str(path), "--report-dir", str(tmp_path / "r"), "--format", "json",
                "--triton-version", "3.9")
    assert done.returncode == 0
    assert (f"{path}:3: warning: this module's syntax is from Triton <= 3.5 (tensor_memory_encoding's 'unpacked' "
            "(colStride from Triton 3.6), line 2), but it is checked with Triton 3.9 semantics (given)") in done.stderr
    s = json.loads((tmp_path / "r" / "report.json").read_text())["summary"]
    assert (s["triton_version"], s["triton_version_reason"]) == ("3.9", "given")


def test_a_module_older_than_every_supported_version_is_refused(tmp_path):
    path = tmp_path / "old34.ttgir"
    path.write_text(MODULE.replace("    tt.return", "    %0 = ttg.memdesc_subview %arg1[%c0] : !ttg.memdesc<2x64xf16, "
                                                    "#shared, #smem, mutable>\n    tt.return"))
    done = _cli("verify", str(path), "--report-dir", str(tmp_path / "r"))
    assert done.returncode == 2
    assert (f"{path}:5: error: this module's syntax is from Triton <= 3.4 (ttg.memdesc_subview (memdesc_index from "
            "Triton 3.5)): layoutcheck models Triton 3.5 to 3.9") in done.stdout


def test_a_spec_names_its_version_and_the_command_line_overrides_it(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(f"""version: 1
triton_version: "3.8"
checks:
  - id: small
    prove: injective
    layout: "{SMALL}"
    shape: [64, 1]
    expect: fails
""")
    r = checker.verify(str(spec), engine="f2")
    assert r["checks"][0]["explanation"].startswith("register=1 has a zero basis")
    assert (r["summary"]["triton_version"], r["summary"]["triton_version_reason"]) == ("3.8", f"given: {spec}")
    r = checker.verify(str(spec), engine="f2", triton_version="3.9")
    assert r["checks"][0]["explanation"].startswith("warp=2 has a zero basis")
    assert r["summary"]["triton_version_reason"] == "given"
    spec.write_text(spec.read_text().replace('"3.8"', "3.8"))
    with pytest.raises(CheckerError) as e:
        checker.verify(str(spec))
    assert str(e.value) == (f"{spec}:2: field 'triton_version': write the Triton version as a string, "
                            'triton_version: "3.8" (YAML reads an unquoted 3.10 as the number 3.1)')


def test_a_gap_skips_with_its_reason_under_older_versions(tmp_path):
    from checker.errors import NotModelled
    versions.require_modelled("padded_direct_to_lds")                  # 3.9: modelled
    with using("3.6"), pytest.raises(NotModelled) as e:
        versions.require_modelled("padded_direct_to_lds")
    assert str(e.value).startswith("Triton 3.6: the direct-to-LDS vector of a copy into a padded layout where the "
                                   "padding's cap binds (canLoadDirectToLDS) is modelled from Triton 3.9 on (Triton "
                                   "3.6 emits")
    done = _cli("verify", "tests/versions/corpus/3.6/gl_lds_direct_mfma.gfx950.ttgir", "--triton-version", "3.6",
                "--engine", "f2", "--report-dir", str(tmp_path), "--format", "text")
    assert "skipped 8x  tests/versions/corpus/3.6/gl_lds_direct_mfma.gfx950.ttgir:33: Triton 3.6: the direct-to-LDS" \
        in done.stdout


def test_checked_as_39_a_copy_only_an_older_triton_emits_says_so():
    """The same 3.6 module read with nothing bounding its version (checked as 3.9): 3.9's cap refuses its
    direct-to-LDS copies, and the skip says the module then comes from an older Triton."""
    r = checker.verify("tests/versions/corpus/3.6/gl_lds_direct_mfma.gfx950.ttgir", engine="f2")
    assert r["summary"]["triton_version"] == "3.9"
    reasons = {s["reason"] for k in r["summary"]["ttgir"] for s in k["skips"] if s["line"] == 33}
    assert reasons == {
        "access: Triton cannot lower this copy (canLoadDirectToLDS): gfx950's direct-to-LDS loads move [4, 16] bytes "
        "per lane; the layouts and the padding (smallest interval 64, at most 1 element(s) per lane) allow 2 (the "
        "padding's cap is Triton 3.9's; Triton 3.6 lowers such copies, gap padded_direct_to_lds: a module with one "
        "comes from an older Triton, give --triton-version)"}
