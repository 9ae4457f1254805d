"""The real-kernel corpus (issue 10): tests/corpus/*.ttgir, compiled by Triton 3.9 on CPU with
tools/compile_corpus.py for cuda:80/90/100 and hip:gfx942/gfx950/gfx1250, and tests/corpus/asm.json
(the shared-memory instructions Triton emitted, per TTGIR line of each fixture).

* every fixture reads without reader problems;
* `layoutcheck verify tests/corpus/ --engine f2` runs in process, exits 0 or 1 (never 3), and
  every fixture gets checks in the report; every failed check is listed below with the reason
  (FINDINGS: what the checker rightly reports; CHECKER_GAPS: known checker gaps, xfail) so that
  a new failure shows up as a test failure, and a fixed gap as an XPASS;
* asm.json covers every fixture and agrees with it: module attributes, and every mapped line is
  an operation line of the fixture.
"""

import json
import re

import pytest

from checker import cli
from checker.ttgir.kernel import read_ir_file

from .conftest import ROOT

CORPUS = ROOT / "tests" / "corpus"
FILES = sorted(p.name for p in CORPUS.glob("*.ttgir"))
ASM = json.loads((CORPUS / "asm.json").read_text())

# Reader problems that are expected (file -> [(line, message prefix)]); none at present.
KNOWN_PROBLEMS: dict[str, list[tuple[int, str]]] = {}

# Failed checks that are true findings, confirmed by the assembly (asm.json): Triton 3.9 keeps
# 128-bit shared accesses on padded layouts whose padding (4 bytes for the fp32 kernel, 8 bytes for
# the MFMA kernel) breaks 16-byte alignment of every other row: st.shared.v4.b32 / ds_write_b128 /
# ds_store_b128 at those lines.  The kernels are legal Gluon; on NVIDIA the access faults (an error),
# AMD's LDS serves it split in the unaligned access mode ROCm sets (a warning).
_SEVERITY = {"cuda80": "error", "cuda90": "error", "cuda100": "error",
             "gfx942": "warning", "gfx950": "warning", "gfx1250": "warning"}
_PADDED_F32 = {f"gl_rt_padded_f32.{t}.ttgir": [(27, "aligned_access", sev), (30, "aligned_access", sev)]
               for t, sev in _SEVERITY.items()}
FINDINGS: dict[str, list[tuple[int, str, str]]] = {
    **_PADDED_F32,
    "gl_mfma16_padded.gfx942.ttgir": [(42, "aligned_access", "warning")],
    "gl_mfma16_padded.gfx950.ttgir": [(42, "aligned_access", "warning")],
}

# Failed checks caused by known checker gaps (file -> [(line, property, why)]); none at present:
# the checker's skips (tensor-memory descriptors; padded_shared views with async copies) are
# reported as skips, not failures.
CHECKER_GAPS: dict[str, list[tuple[int, str, str]]] = {}


def test_corpus_is_large_enough():
    targets = {name.split(".")[1] for name in FILES}
    assert len(FILES) >= 150
    assert targets == {"cuda80", "cuda90", "cuda100", "gfx942", "gfx950", "gfx1250"}


@pytest.mark.parametrize("name", FILES)
def test_fixture_reads_cleanly(name):
    checks = read_ir_file(str(CORPUS / name))
    got = [(line, msg) for line, msg in checks.problems]
    known = KNOWN_PROBLEMS.get(name, [])
    unexpected = [(line, msg) for line, msg in got
                  if not any(line == kl and msg.startswith(km) for kl, km in known)]
    assert not unexpected, f"{name}: reader problems {unexpected}"


@pytest.fixture(scope="module")
def corpus_report(tmp_path_factory):
    """`layoutcheck verify tests/corpus/ --engine f2`, once for the module, from the repository root."""
    import os
    out = tmp_path_factory.mktemp("corpus") / "reports"
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        rc = cli.main(["verify", "tests/corpus/", "--engine", "f2", "--report-dir", str(out),
                       "--format", "json", "--jobs", "1", "--quiet"])
    finally:
        os.chdir(cwd)
    report = json.loads((out / "report.json").read_text())
    return rc, report


def _file_of(check_id: str) -> str:
    return check_id.split(":", 1)[0].rsplit("/", 1)[-1]


def test_verify_runs_on_the_corpus(corpus_report):
    rc, report = corpus_report
    assert rc in (0, 1), f"layoutcheck verify exited {rc} on the corpus"
    files = {_file_of(c["id"]) for c in report["checks"]}
    missing = sorted(set(FILES) - files)
    assert not missing, f"no checks reported for {missing}"


def _hard_failures(report):
    """Failed checks other than bank-conflict, conversion-cost and global-coalescing warnings (performance
    figures: tests/verify/test_global_facts.py pins the coalescing model against the assembly,
    tests/properties/test_conversion_cost_amd.py the corpus's conflicting AMD conversions):
    {file: {(line, property, severity)}}."""
    fails = {}
    for c in report["checks"]:
        if c["passed"] or c["property"] in ("bank_conflict_free", "conversion_cost", "coalesced"):
            continue
        parts = c["id"].split(":")
        fails.setdefault(_file_of(c["id"]), set()).add((int(parts[1]), c["property"], c["severity"]))
    return fails


def test_verify_failures_are_known(corpus_report):
    _, report = corpus_report
    fails = _hard_failures(report)
    gaps = {f: {(ln, prop) for ln, prop, _ in v} for f, v in CHECKER_GAPS.items()}
    known = {f: set(v) for f, v in FINDINGS.items()}
    new = {f: sorted(x for x in v - known.get(f, set()) if x[:2] not in gaps.get(f, set()))
           for f, v in fails.items()}
    new = {f: v for f, v in new.items() if v}
    assert not new, f"new failures on the corpus: {new}"
    assert report["summary"]["failed"] == sum(sev == "error" for v in fails.values() for _, _, sev in v)


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_verify_reports_the_known_findings(corpus_report, name):
    _, report = corpus_report
    got = _hard_failures(report).get(name, set())
    assert set(FINDINGS[name]) <= got, f"{name}: expected findings {FINDINGS[name]}, got {sorted(got)}"


@pytest.mark.parametrize("name,line,prop", [
    pytest.param(f, ln, prop, marks=pytest.mark.xfail(strict=False, reason=f"{f}:{ln}: {why}"))
    for f, v in sorted(CHECKER_GAPS.items()) for ln, prop, why in v])
def test_checker_gaps(corpus_report, name, line, prop):
    _, report = corpus_report
    assert (line, prop) not in _hard_failures(report).get(name, set())


# --------------------------------------------------------------------------------------------
# asm.json

_OP = re.compile(r"^\s*(?:%[^=]*=\s*)?\"?[a-z_][a-z0-9_]*\.[a-z0-9_.]+\"?")
_ATTR = {"num_warps": r'"ttg\.num-warps" = (\d+)', "threads_per_warp": r'"ttg\.threads-per-warp" = (\d+)',
         "num_ctas": r'"ttg\.num-ctas" = (\d+)'}
_PTX = re.compile(r"^(ld\.shared|st\.shared|ldmatrix|stmatrix|cp\.async|tcgen05\.|st\.async|mapa|atom\.shared|"
                  r"red\.shared|ld\.async|cp\.reduce\.async|mbarrier\.)")
_GCN = re.compile(r"^(ds_|buffer_load.* lds$|global_load.*lds|.*async_to_lds|tensor_(load_to|store_from)_lds)")


def test_asm_json_covers_every_fixture():
    assert set(ASM) == set(FILES)


@pytest.mark.parametrize("name", FILES)
def test_asm_json_matches_fixture(name):
    facts = ASM[name]
    text = (CORPUS / name).read_text()
    lines = text.split("\n")
    tag = name.split(".")[1]
    assert facts["target"] == ("cuda:" + tag[4:] if tag.startswith("cuda") else "hip:" + tag)
    for key, pat in _ATTR.items():
        m = re.search(pat, text)
        if key == "num_warps" and "ttg.warp_specialize" in text:
            # Triton's metadata counts the warps of the whole launch: default + worker partitions,
            # rounded up to a warp group (gl_ws_tcgen05: 4 + 1 + 1 -> 8)
            assert m and facts[key] >= int(m.group(1)) and facts[key] % 4 == 0, f"{name}: {key}"
            continue
        assert m and int(m.group(1)) == facts[key], f"{name}: {key}"
    assert isinstance(facts["shared"], int) and facts["shared"] >= 0
    assert facts["recompile_matches"], f"{name}: {facts.get('error')}"
    instr = _PTX if tag.startswith("cuda") else _GCN
    for key, counts in facts["lines"].items():
        ln = int(key)
        assert 1 <= ln <= len(lines)
        src = lines[ln - 1]
        assert not src.startswith(("#loc", "//")), f"{name}:{ln} is not an op line: {src[:80]}"
        if ln not in facts["ambiguous_lines"]:
            assert _OP.match(src), f"{name}:{ln} is not an op line: {src[:80]}"
        assert counts and all(isinstance(n, int) and n > 0 for n in counts.values())
        assert all(instr.match(op) for op in counts), f"{name}:{ln}: {counts}"
    # the fixtures that use shared memory have shared-memory instructions somewhere
    if facts["shared"] and re.search(r"ttg\.(local_alloc|local_load|local_store|async_copy)", text):
        assert facts["lines"] or facts["unmapped"], f"{name}: shared={facts['shared']} but no instructions"
