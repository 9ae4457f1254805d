"""checker/run/runner.py: each check proved, judged and turned into its record; identical checks proved once;
outcomes in obligation order and byte-identical for any --jobs; errors located at the check (a spec's stop the
run, a TTGIR check's are a skip or an ``error`` record); the progress line or bar."""

import dataclasses
import enum
import io
import json
import os
import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import checker
from checker.errors import CheckerError, InternalError, NotModelled
from checker.properties.result import Result
from checker.reports.json_report import render_json
from checker.run import runner
from checker.run.runner import Outcome, Progress, guided_chunks, judge, proof_key, run
from checker.run.verification import load_inputs, verify_inputs
from checker.spec import load_spec
from tests.verify.conftest import SPECS, verify  # noqa: F401  (verify: the CLI fixture, for the sweep tests)

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNEL = str(ROOT / "specs" / "kernels" / "matmul.cuda80.ttgir")
NEGATIVES = str(ROOT / "specs" / "negatives.yaml")

TWICE = """\
version: 1
encodings:
  blk: {kind: blocked, size_per_thread: [1, 4], threads_per_warp: [4, 8], warps_per_cta: [4, 1], order: [1, 0]}
checks:
  - id: a
    prove: conversion
    src: "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
    dst: blk
    shape: [64, 64]
  - id: same-as-a
    prove: conversion
    src: "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
    dst: blk
    shape: [64, 64]
    expect_level: register
  - id: a-with-triton
    prove: conversion
    src: "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
    dst: blk
    shape: [64, 64]
    triton: true
"""


def _spec(tmp_path, text=TWICE):
    path = tmp_path / "twice.yaml"
    path.write_text(text)
    return str(path)


def record(id, passed=True, severity="error"):
    return {"id": id, "passed": passed, "severity": severity}


# ---------------------------------------------------------------- sharing: identical checks proved once


def test_identical_checks_are_proved_once_and_keep_their_own_records(tmp_path, monkeypatch):
    inputs = load_inputs([_spec(tmp_path)])
    done = verify_inputs(inputs, jobs=1)
    a, same, tri = done.report["checks"]
    assert (a["id"], same["id"]) == ("a", "same-as-a")
    assert a["passed"] and a["details"]["level"] == "cta"
    assert not same["passed"] and same["failure"] == "expected level register, got cta" and "layouts" in same
    assert same["details"] == a["details"] and "triton_class" not in a["details"]
    assert tri["details"]["triton_class"] == "shared_memory"          # asked for: another proof
    assert done.timings["checks"]["same-as-a"] == {"total": 0.0, "engines": {}, "same_as": "a"}
    assert "same_as" not in done.timings["checks"]["a-with-triton"]
    monkeypatch.setattr(runner, "proof_key", lambda ob: None)        # every check proved on its own
    alone = verify_inputs(inputs, jobs=1)
    assert render_json(alone.report) == render_json(done.report)


def test_sharing_keeps_the_report_of_specs_and_kernels(monkeypatch):
    inputs = load_inputs([NEGATIVES, KERNEL])
    shared = render_json(verify_inputs(inputs, jobs=1, layouts="all").report)
    monkeypatch.setattr(runner, "proof_key", lambda ob: None)
    assert render_json(verify_inputs(inputs, jobs=1, layouts="all").report) == shared


def test_proof_key_leaves_out_id_expectation_and_source(tmp_path):
    a, same, tri = load_spec(_spec(tmp_path))
    assert proof_key(a) == proof_key(same) != proof_key(tri)          # triton: true is a parameter of the proof
    assert proof_key(a)[0] == "conversion" and proof_key(a)[2] == (64, 64)
    assert proof_key(dataclasses.replace(a, shape=(32, 64))) != proof_key(a)
    assert proof_key(dataclasses.replace(a, op="ttg.convert_layout")) != proof_key(a)   # a TTGIR check's errors differ
    assert proof_key(dataclasses.replace(a, params=(("buffers", [1, [2]]),))) == \
        proof_key(dataclasses.replace(a, params=(("buffers", (1, (2,))),)))            # lists compared as tuples
    assert proof_key(dataclasses.replace(a, params=(("x", {1, 2}),))) is None          # cannot be compared


def test_run_keeps_obligation_order_and_reports_each_copy(tmp_path):
    a, same, tri = load_spec(_spec(tmp_path))
    again = dataclasses.replace(a, id="a-again", line=99)
    seen = []
    outcomes = run([same, tri, a, again], jobs=1, progress=seen.append)
    assert [o.record["id"] for o in outcomes] == ["same-as-a", "a-with-triton", "a", "a-again"]
    assert [o.record["id"] for o in seen] == ["same-as-a", "a", "a-again", "a-with-triton"]   # copies at once
    assert [o.seconds.get("same_as") for o in outcomes] == [None, None, "same-as-a", "same-as-a"]
    assert [o.passed for o in outcomes] == [False, True, True, True]
    assert outcomes[3].record["source"] == {"file": a.file, "line": 99}
    assert "layouts" not in outcomes[2].record and set(outcomes[0].record["layouts"]) == {"src", "dst"}
    two = run([same, tri, a, again], jobs=2)
    assert [o.record for o in two] == [o.record for o in outcomes]


def test_a_kernels_checks_are_proved_property_by_property_after_the_specs(tmp_path, monkeypatch):
    """`proving_order`: a spec's checks first, in obligation order; a kernel's checks grouped by property (in
    obligation order within one); the outcomes keep obligation order, with the same records as proved one by one."""
    kernel = [ob for ob in load_inputs([str(ROOT / "tests/reports/kernel.ttgir")]).obligations]
    a, same, tri = load_spec(_spec(tmp_path))
    mixed = [kernel[0], a, *kernel[1:], tri]
    seen = []
    outcomes = run(mixed, jobs=1, progress=seen.append)
    spec_ids = [o.record["id"] for o in seen[:2]]
    assert spec_ids == ["a", "a-with-triton"]
    props = [o.record["property"] for o in seen[2:] if o.record is not None]
    assert props == sorted(props) and len(set(props)) > 3
    assert [ob.property for ob in kernel] != sorted(ob.property for ob in kernel)    # (so the order did change)
    assert [o.record["id"] if o.record else o.check.id for o in outcomes] == [ob.id for ob in mixed]
    monkeypatch.setattr(runner, "proving_order", lambda ob, index: index)
    in_order = run(mixed, jobs=1)
    assert [o.record for o in outcomes] == [o.record for o in in_order]


def test_guided_chunks_cover_the_tasks_in_order_large_first():
    chunks = guided_chunks(10_080, 2)
    assert [i for r in chunks for i in r] == list(range(10_080))
    sizes = [len(r) for r in chunks]
    assert sizes[:3] == [256, 256, 256] and sizes[-1] <= 8 and sizes == sorted(sizes, reverse=True)
    assert max(sizes) == 256 and min(sizes[:-1]) == 8 and len(chunks) == 66
    assert [len(r) for r in guided_chunks(100, 4)] == [8] * 12 + [4]
    assert guided_chunks(0, 2) == [] and [len(r) for r in guided_chunks(3, 2)] == [3]


# ---------------------------------------------------------------- judging and errors


def test_judge_says_why_a_result_misses_its_expectation(tmp_path):
    a, same, _ = load_spec(_spec(tmp_path))
    cta = Result("conversion", "holds", {}, None, "", {"level": "cta"})
    assert judge(a, cta) is None
    assert judge(same, cta) == "expected level register, got cta"
    assert judge(a, Result("conversion", "unknown", {}, None, "", {})) == "expected holds, got unknown"
    counted = dataclasses.replace(a, expect="fails", expect_conflicts=3)
    assert judge(counted, Result("bank_conflict_free", "fails", {}, None, "", {"conflicts": 7})) == (
        "expected 3 conflicts, got 7")


def test_a_spec_check_that_raises_stops_the_run_at_its_line(tmp_path, monkeypatch):
    a, same, tri = load_spec(_spec(tmp_path))
    real = runner.evaluate

    def evaluate(ob, engine="both", timeout_ms=10_000):
        if ob.id == "a-with-triton":
            raise CheckerError("cannot model this", field="triton")
        if ob.id == "a":
            raise ValueError("boom")
        return real(ob, engine, timeout_ms)

    monkeypatch.setattr(runner, "evaluate", evaluate)
    with pytest.raises(CheckerError) as e:
        run([same, tri], jobs=1)
    assert str(e.value) == f"{tri.file}:{tri.line}: check 'a-with-triton': field 'triton': cannot model this"
    with pytest.raises(InternalError) as e:                 # the first in obligation order, named as itself
        run([a, tri], jobs=1)
    assert str(e.value) == f"{a.file}:{a.line}: check 'a': ValueError: boom"
    assert run([same, a], jobs=1)[1].record["id"] == "a"    # a copy of same-as-a: `a` itself is never proved
    with pytest.raises(CheckerError, match="check 'a-with-triton'"):
        run([tri, a], jobs=1)
    with pytest.raises(InternalError, match="no property 'nope' in the registry"):
        real(dataclasses.replace(a, property="nope"))


def test_a_ttgir_check_that_raises_is_skipped_or_an_error_record(monkeypatch):
    obs = [ob for ob in load_inputs([str(ROOT / "tests/reports/kernel.ttgir")]).obligations
           if ob.property in ("bank_conflict_free", "aligned_access")]
    assert [ob.property for ob in obs] == ["bank_conflict_free", "aligned_access"]

    def evaluate(ob, engine="both", timeout_ms=10_000):
        if ob.property == "bank_conflict_free":
            raise NotModelled("this instruction is not modelled", field="access")
        raise KeyError("lane")

    monkeypatch.setattr(runner, "evaluate", evaluate)
    skipped, errored = run(obs, jobs=1)
    assert (skipped.record, skipped.skipped, skipped.check) == (None, "access: this instruction is not modelled",
                                                                obs[0])
    assert skipped.passed
    rec = errored.record
    assert (rec["id"], rec["verdict"], rec["passed"], rec["severity"], rec["engines"]) == (
        obs[1].id, "error", False, "error", {})
    assert rec["failure"] == "internal error: KeyError: 'lane'"
    assert rec["explanation"] == "internal error (a bug in layoutcheck): KeyError: 'lane'"
    assert rec["source"]["op"] == "ttg.local_store"


# ---------------------------------------------------------------- determinism across --jobs (the CLI)


def test_sweep_of_1440_checks_is_identical_for_any_jobs(verify):
    spec = SPECS / "sweep_blocked.yaml"
    rc1, out1, _, reports = verify(spec, "--engine", "f2", formats="json", jobs=1)
    one = (reports / "report.json").read_bytes()
    rc2, out2, _, reports = verify(spec, "--engine", "f2", "--timings", formats="json", jobs=2)
    two = (reports / "report.json").read_bytes()
    assert rc1 == rc2 == 0
    assert one == two and out1 == out2
    checks = json.loads(one)["checks"]
    assert len(checks) == len({c["id"] for c in checks}) == 1440
    assert checks[0]["id"] == ("blocked-covers[size_per_thread=1x1,threads_per_warp=1x32,warps_per_cta=1x4,"
                               "order=1x0,shape=16x16]")
    assert checks[1]["id"].endswith("order=1x0,shape=32x64]")          # the last key varies fastest
    assert checks[719]["id"] == ("blocked-covers[size_per_thread=2x2,threads_per_warp=32x1,warps_per_cta=4x1,"
                                 "order=0x1,shape=128x32]")
    assert checks[720]["id"].startswith("blocked-only-broadcast[size_per_thread=1x1,")
    assert checks[719]["operands"]["layout"] == ("#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [32, 1], "
                                                 "warpsPerCTA = [4, 1], order = [0, 1]}>")
    assert all(c["passed"] and c["engines"] == {"f2": c["verdict"]} for c in checks)
    timings = json.loads((reports / "timings.json").read_text())
    assert timings["jobs"] == 2 and list(timings["checks"]) == [c["id"] for c in checks]


def test_z3_witnesses_do_not_depend_on_jobs(verify):
    """Z3's models depend on its context's history; each obligation gets a fresh one."""
    args = ("specs/negatives.yaml", SPECS / "failing.yaml", "--engine", "z3")
    rc1, _, _, reports = verify(*args, formats="json", jobs=1)
    one = (reports / "report.json").read_bytes()
    rc2, _, _, reports = verify(*args, formats="json", jobs=2)
    assert rc1 == rc2 == 1 and one == (reports / "report.json").read_bytes()
    assert sum(c["counterexample"] is not None for c in json.loads(one)["checks"]) == 8


def test_z3_witnesses_do_not_depend_on_the_checks_before_them():
    """With --engine z3 no obligation is answered from an earlier check's proof: that would change what the
    check's fresh context saw before its later obligations, and so their models (attention.cuda80 proves
    an obligation attention.cuda90's conversion at line 144 also has, before its sat ones)."""
    target = "attention.cuda90.ttgir:144:ttg.convert_layout:conversion[#mma -> #blocked]"

    def witness(paths):
        report = checker.verify(paths, engine="z3")
        return next(c["details"]["witnesses"] for c in report["checks"] if c["id"].endswith(target))
    alone = witness(["specs/kernels/attention.cuda90.ttgir"])
    assert alone == witness(["specs/kernels/attention.cuda80.ttgir", "specs/kernels/attention.cuda90.ttgir"])
    # Z3's model for the query as written today (a different text, e.g. shorter SMT-LIB2, may give another valid one)
    assert alone["register"]["dst_index"] == {"register": 0, "lane": 16, "warp": 0, "block": 0}
    assert runner.proof_sharing("z3").__class__.__name__ == "nullcontext"


# ---------------------------------------------------------------- progress


def test_progress_is_a_bar_on_a_terminal_and_a_line_every_10_percent_elsewhere():
    outcomes = [Outcome(record("a1"), {}), Outcome(record("a2", passed=False), {})]
    plain, bar = io.StringIO(), io.StringIO()
    clock = iter(range(100)).__next__
    for stream, tty in ((plain, False), (bar, True)):
        progress = Progress(2, stream, tty=tty, clock=clock)
        for o in outcomes:
            progress(o)
        progress.close()
    assert plain.getvalue() == ("verify: 1/2 checks (50%), 0 failed, 1.0 checks/s, about 1s left\n"
                                "verify: 2/2 checks (100%), 1 failed, 1.0 checks/s, 2s in all\n")
    assert bar.getvalue().startswith("\rverify:   0%|")                   # drawn before the first check ends
    assert bar.getvalue().rstrip("\n").rsplit("\r", 1)[-1].startswith("verify: 100%|")
    assert " 2/2 [" in bar.getvalue() and "], 1 failed" in bar.getvalue()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs a pseudo-terminal")
def test_the_bar_shows_on_a_terminal_that_reports_no_size():
    import pty
    import sys
    code = ("from checker.run.runner import Outcome, Progress\n"
            "p = Progress(50)\n"
            "for i in range(50): p(Outcome({'passed': True, 'severity': 'error'}, {}))\n"
            "p.close()\n")
    pid, fd = pty.fork()                # a fresh pty: 0 columns and 0 lines, as `docker exec -t` can give
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "-c", code])
    out = b""
    while True:
        try:
            data = os.read(fd, 1 << 16)
        except OSError:                 # EIO once the child has closed the terminal
            break
        if not data:
            break
        out += data
    os.waitpid(pid, 0)
    last = out.decode().replace("\r\n", "\n").rstrip("\n").rsplit("\r", 1)[-1]
    assert last.startswith("verify: 100%|") and " 50/50 [" in last and len(last) <= 100
    assert len(last.split("|")[1]) >= 50                # the bar keeps most of the 100 columns


def test_plain_progress_every_10_percent_or_every_few_seconds():
    stream, now = io.StringIO(), [0.0]
    progress = Progress(1000, stream, tty=False, clock=lambda: now[0])
    for i in range(1000):
        now[0] += 0.01                                                   # 100 checks a second: 10 s in all
        progress(Outcome(record(f"c{i}", passed=i not in (5, 7), severity="warning" if i == 7 else "error"), {}))
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10 and all(f"/1000 checks ({p}%)" in line for p, line in zip(range(10, 101, 10), lines))
    assert lines[0] == "verify: 100/1000 checks (10%), 1 failed, 1 warning, 100.0 checks/s, about 9s left"
    assert lines[-1] == "verify: 1000/1000 checks (100%), 1 failed, 1 warning, 100.0 checks/s, 10s in all"
    stream, now = io.StringIO(), [0.0]
    progress = Progress(1000, stream, tty=False, clock=lambda: now[0])
    for i in range(50):                                     # slow checks: a first line at 1 s, then every 5 s
        now[0] += 1.0
        progress(Outcome(record(f"c{i}"), {}))
    assert [line.split(" checks (")[0] for line in stream.getvalue().splitlines()] == [
        "verify: 1/1000", "verify: 6/1000", "verify: 11/1000", "verify: 16/1000", "verify: 21/1000",
        "verify: 26/1000", "verify: 31/1000", "verify: 36/1000", "verify: 41/1000", "verify: 46/1000"]


def test_progress_counts_skipped_checks_and_writes_durations():
    stream, now = io.StringIO(), [0.0]
    progress = Progress(3, stream, tty=False, clock=lambda: now[0])
    for o in (Outcome(None, {}, skipped="not modelled"), Outcome(record("w", False, "warning"), {}),
              Outcome(record("v", False, "warning"), {})):
        now[0] += 100.0
        progress(o)
    assert stream.getvalue().splitlines()[-1] == (
        "verify: 3/3 checks (100%), 0 failed, 2 warnings, 1 not checked, 0.0 checks/s, 5m00s in all")
    assert [Progress._duration(s) for s in (0.4, 59, 185, 3599.6, 3720)] == ["0s", "59s", "3m05s", "1h00m", "1h02m"]


def test_verify_from_python_runs_through_the_runner():
    rep = checker.verify(NEGATIVES, only=["neg-blocked-*"])
    assert [(c["id"], c["verdict"], c["passed"]) for c in rep["checks"]] == [
        ("neg-blocked-from-smaller-tile-not-surjective", "fails", True)]


# ---------------------------------------------------------------- records as JSON data


class _Level(enum.IntEnum):
    LOW = 3


_KEYS = st.one_of(st.text(max_size=3), st.integers(-5, 5), st.booleans(), st.none(), st.floats(allow_nan=False))
_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5),
                    st.just(_Level.LOW))
_TREES = st.recursive(_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                                                       st.dictionaries(_KEYS, inner, max_size=3)), max_leaves=15)


@settings(max_examples=300, deadline=None)
@given(_TREES)
def test_json_data_is_what_json_reads_back(value):
    """A record is copied as JSON data without writing the text: the same value json.loads(json.dumps(.))
    gives (tuples as lists, keys 1 / True / None as "1" / "true" / "null", an IntEnum as its int)."""
    assert runner.json_data(value) == json.loads(json.dumps(value))


@pytest.mark.parametrize("value, message", [({(1, 2): 0}, "keys must be str, int, float, bool or None, not tuple"),
                                            ({"a": {1, 2}}, "Object of type set is not JSON serializable")])
def test_json_data_refuses_what_json_refuses(value, message):
    with pytest.raises(TypeError, match=message):
        runner.json_data(value)


def test_records_encoded_by_the_workers_make_the_same_report_json(tmp_path):
    from checker.reports.json_report import encode_compact
    inputs = load_inputs([_spec(tmp_path), NEGATIVES, KERNEL])
    done = verify_inputs(inputs, jobs=2, json_report=True, pretty=False)
    checks, rows = done.report["checks"], done.rows
    assert len(rows) == len(checks) > 20
    copies = [o.seconds.get("same_as") is not None for o in done.outcomes]
    assert copies[1] and [row is None for row in rows] == copies      # a copy's record is made in the parent
    assert all(row == encode_compact(c) for row, c in zip(rows, checks) if row is not None)
    assert render_json(done.report, False, rows) == render_json(done.report, False)
    assert render_json(done.report, False, rows[:-1]) == render_json(done.report, False)     # not aligned: unused
    assert set(verify_inputs(inputs, jobs=1, json_report=True).rows) == {None}     # indented (few checks): none encoded
    assert set(verify_inputs(inputs, jobs=1, pretty=False).rows) == {None}         # no report.json asked for


def test_verify_writes_the_same_compact_report_for_any_jobs(tmp_path):
    spec = _spec(tmp_path)
    for jobs in (1, 2):
        checker.verify([spec, NEGATIVES], jobs=jobs, report_dir=tmp_path / f"j{jobs}", formats="json", pretty=False)
    one, two = ((tmp_path / f"j{jobs}" / "report.json").read_text() for jobs in (1, 2))
    assert one == two and one.count("\n") == len(json.loads(one)["checks"]) + 2      # one record per line
