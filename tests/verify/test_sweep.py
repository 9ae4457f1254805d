"""A sweep of 1,440 generated checks: ids, order, and byte-identical report.json for --jobs 1 and 2."""

import json

from .conftest import SPECS


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
