"""Section 5 of the benchmark: verify beside Triton's compiler, start-up per command, sweep throughput per
engine and executor, and the model="triton" bank figure beside Triton's own helper.

Fairness rules: both sides alternate call by call (Triton runs in a long-lived worker under the
``--triton-python`` interpreter, `bench/triton_worker.py`, asked for one call at a time between ours), the
statistic is the median of paired samples with its [min-max] spread, no side hits a cache it filled on an
earlier sample (Triton: TRITON_ALWAYS_COMPILE and a fresh cache folder per compile; ours: a new process for
"process" figures, the lowering cache cleared for "cold" ones; "warm" says it), and peak memory is the
largest sum of resident memory over the process tree (workers, Ray's processes) sampled every 20 ms.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from .corpus import ROOT

KERNELS = ("vector_add", "softmax", "layer_norm", "matmul", "attention")
TARGETS = ("cuda80", "cuda90", "gfx942")


def spread(xs) -> dict:
    xs = [x for x in xs if x is not None]
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "median": round(statistics.median(xs), 4), "min": round(min(xs), 4),
            "max": round(max(xs), 4)}


class Triton:
    """The Triton worker: one request, one answer."""

    def __init__(self, python: str):
        self.p = subprocess.Popen([python, os.path.join(ROOT, "bench", "triton_worker.py")], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)

    def ask(self, **req) -> dict:
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("the Triton worker stopped")
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


PAGE = os.sysconf("SC_PAGE_SIZE")
RESCAN = 10         # samples between two scans of /proc for the process tree's members


def tree_pids(pid: int) -> list[int]:
    """pid and all its descendants (a scan of every /proc/N/stat: 0.6 ms on the bench machine)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(name))
        except (OSError, IndexError, ValueError):
            continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def rss(pids: list[int]) -> int:
    """Resident bytes of these processes (/proc/N/statm; a process gone counts 0)."""
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def tree_rss(pid: int) -> int:
    """Resident bytes of pid and all its descendants (Linux /proc)."""
    return rss(tree_pids(pid))


def timed_process(argv: list[str], env=None) -> tuple[int, float, float]:
    """(exit code, wall seconds, peak MiB summed over the process tree) of one command. The tree is sampled
    every 20 ms: its members' resident sizes each time, its members themselves every RESCAN samples (a full
    scan of /proc costs a sampler thread a few % of a core, which a command using every core would lose)."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    peak = [0]
    done = threading.Event()

    def sample():
        n, members = 0, [p.pid]
        while not done.is_set():
            if n % RESCAN == 1:             # the first rescan after 20 ms: the workers have started by then
                members = tree_pids(p.pid)
            peak[0] = max(peak[0], rss(members))
            n += 1
            done.wait(0.02)
    s = threading.Thread(target=sample, daemon=True)
    s.start()
    rc = p.wait()
    wall = time.perf_counter() - t
    done.set()
    s.join()
    return rc, wall, peak[0] / 2 ** 20


def _checker(*args) -> list[str]:
    return [sys.executable, "-m", "checker", *args]


# ------------------------------------------------------------------ kernels: verify vs triton.compile


def kernels(triton_python: str | None, quick: bool) -> dict:
    """verify of each kernel's TTGIR (specs/kernels, compiled by tools/compile_kernels.py) against Triton
    compiling the same kernel for the same target, paired sample by sample: ours whole process
    (`layoutcheck verify K --engine both`, a new process: cold), ours in-process (checker.verify, engine
    both and f2, warm: this process has lowered the kernel's encodings before, nothing else is kept; per
    sample the median of 3 calls per engine, the engines alternating, so that neither always runs first
    after the processes),
    Triton's triton.compile (its worker warm after its first compile, every compile uncached)."""
    import checker
    import checker.encodings
    import checker.smt
    todo = [(k, t) for k in KERNELS for t in TARGETS]
    if quick:
        todo = [("vector_add", "cuda80"), ("matmul", "cuda80")]
    reps = 1 if quick else 3
    tri = Triton(triton_python) if triton_python else None
    rows = []
    try:
        if tri is not None:
            first = tri.ask(op="compile", kernel="vector_add", target="cuda80")      # Triton's own start-up
            tri.ask(op="same_process", kernel="vector_add", target="cuda80")         # the checker's imports there
        for kernel, target in todo:
            path = f"specs/kernels/{kernel}.{target}.ttgir"
            checker.verify(os.path.join(ROOT, path))       # lowering cache filled once (warm figures below)
            samples = []
            for _ in range(reps):
                s = {}
                if tri is not None:
                    s["triton"] = tri.ask(op="compile", kernel=kernel, target=target)["seconds"]
                    same = tri.ask(op="same_process", kernel=kernel, target=target)
                    s["same_process_cold_both_over_triton"] = same["verify"] / same["compile"]
                    _, s["triton_process"], _ = timed_process(
                        [triton_python, os.path.join(ROOT, "bench", "triton_worker.py"), "--once", kernel, target])
                rc, s["process"], s["process_mib"] = timed_process(
                    _checker("verify", path, "--engine", "both", "--jobs", "1", "--quiet", "--format", "json",
                             "--report-dir", tempfile.mkdtemp()))
                calls: dict[str, list[float]] = {"both": [], "f2": [], "cold_both": []}
                for _ in range(3):                  # the engines alternating; each figure the median of its 3
                    for engine in calls:
                        if engine.startswith("cold_"):      # nothing kept from earlier calls: a kernel never seen
                            checker.encodings.clear_caches()
                            checker.smt.clear_caches()
                        t = time.perf_counter()
                        report = checker.verify(os.path.join(ROOT, path), engine=engine.removeprefix("cold_"))
                        calls[engine].append(time.perf_counter() - t)
                for engine, times in calls.items():
                    s[f"in_process_{engine}"] = statistics.median(times)
                s["checks"] = report["summary"]["checks"]
                samples.append(s)
            row = {"kernel": kernel, "target": target, "checks": samples[0]["checks"]}
            for k in ("triton", "triton_process", "process", "in_process_both", "in_process_f2", "in_process_cold_both",
                      "process_mib"):
                row[k] = spread([s.get(k) for s in samples])
            for k in ("process", "in_process_both", "in_process_f2", "in_process_cold_both"):
                row[f"{k}_over_triton"] = spread([s[k] / s["triton"] for s in samples if s.get("triton")])
            row["process_over_triton_process"] = spread([s["process"] / s["triton_process"] for s in samples
                                                         if s.get("triton_process")])
            row["same_process_cold_both_over_triton"] = spread([s["same_process_cold_both_over_triton"]
                                                                for s in samples if s.get("triton")])
            rows.append(row)
    finally:
        if tri is not None:
            tri.close()
    out = {"rows": rows, "pairs_per_kernel": reps}
    if tri is not None:
        out["triton_first_compile_s"] = round(first["seconds"], 3)
    for k in ("process_over_triton", "in_process_both_over_triton", "in_process_f2_over_triton",
              "in_process_cold_both_over_triton", "process_over_triton_process", "same_process_cold_both_over_triton"):
        out[k] = spread([r[k].get("median") for r in rows])
    named = [r for r in rows if r["kernel"] != "vector_add"]     # the kernels issue 29's target names
    for k in ("in_process_cold_both_over_triton", "same_process_cold_both_over_triton"):
        out[f"{k}_named"] = spread([r[k].get("median") for r in named])
    return out


# ------------------------------------------------------------------ start-up per command

COMMANDS = {
    "--version": ["--version"],
    "lower": ["lower", "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
                       "order = [1, 0]}>", "--shape", "64x64"],
    "prove surjective --engine f2": ["prove", "surjective", "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = "
                                     "[4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>", "--shape", "64x64",
                                     "--engine", "f2"],
    "prove surjective --engine both": ["prove", "surjective", "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp "
                                       "= [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>", "--shape", "64x64"],
    "verify vector_add.cuda80 --engine f2": ["verify", "specs/kernels/vector_add.cuda80.ttgir", "--engine", "f2",
                                             "--quiet", "--format", "json"],
    "verify vector_add.cuda80 --engine both": ["verify", "specs/kernels/vector_add.cuda80.ttgir", "--quiet",
                                               "--format", "json"],
}


def startup(quick: bool) -> dict:
    """Whole-process wall time of each command (a new process each; commands alternate run by run)."""
    reps = 3 if quick else 9
    times: dict[str, list[float]] = {k: [] for k in COMMANDS}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(reps):
            for name, args in COMMANDS.items():
                extra = ["--report-dir", tmp] if args[0] == "verify" else []
                times[name].append(timed_process(_checker(*args, *extra))[1])
    return {name: spread(xs) for name, xs in times.items()}


# ------------------------------------------------------------------ sweep throughput


def sweep_throughput(quick: bool) -> dict:
    """The distinct-check sweep (bench.sections.sweep_spec) per engine with --jobs 1, and with engine both:
    --jobs 1 against --jobs 2 (alternating, paired), and on a local Ray of 2 CPUs (--executor ray, whole
    process: Ray's start-up included)."""
    from .sections import sweep_spec
    out: dict = {"runs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        sweep, n = sweep_spec(tmp, quick)
        out["checks"] = n

        def run(name, *args):
            rc, wall, mib = timed_process(_checker("verify", sweep, "--quiet", "--format", "json", "--report-dir",
                                                   os.path.join(tmp, name), *args))
            with open(os.path.join(tmp, name, "report.json"), "rb") as f:
                data = f.read()
            return {"exit_code": rc, "wall_s": round(wall, 3), "peak_rss_mib": round(mib, 1),
                    "checks_per_s": round(n / wall, 1)}, data

        for engine in ("f2", "z3"):
            out["runs"][f"{engine} --jobs 1"] = run(f"{engine}1", "--engine", engine, "--jobs", "1")[0]
        pairs = []
        reports = {}
        for _i in range(1 if quick else 5):
            a, reports["jobs1"] = run("b1", "--jobs", "1")
            b, reports["jobs2"] = run("b2", "--jobs", "2")
            pairs.append((a, b))
        out["runs"]["both --jobs 1"] = pairs[-1][0]
        out["runs"]["both --jobs 2"] = pairs[-1][1]
        out["jobs2_speedup"] = spread([a["wall_s"] / b["wall_s"] for a, b in pairs])
        out["both_jobs1_s"] = spread([a["wall_s"] for a, _ in pairs])
        out["both_jobs2_s"] = spread([b["wall_s"] for _, b in pairs])
        try:
            import ray  # noqa: F401
            env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}     # a local Ray of its own
            rc, wall, mib = timed_process(_checker("verify", sweep, "--quiet", "--format", "json", "--report-dir",
                                                   os.path.join(tmp, "ray"), "--executor", "ray"), env=env)
            with open(os.path.join(tmp, "ray", "report.json"), "rb") as f:
                same = f.read() == reports["jobs1"]
            out["runs"]["both --executor ray"] = {"exit_code": rc, "wall_s": round(wall, 3),
                                                  "peak_rss_mib": round(mib, 1), "checks_per_s": round(n / wall, 1),
                                                  "report_identical_to_jobs1": same}
        except ImportError:
            out["runs"]["both --executor ray"] = None
        out["jobs2_report_identical_to_jobs1"] = reports["jobs1"] == reports["jobs2"]
    return out


# ------------------------------------------------------------------ bank: model="triton" vs Triton's helper


def bank(triton_python: str | None, quick: bool) -> dict:
    """prove.bank_conflict_free(..., model="triton", engine="f2") from the two encodings against Triton's
    get_shared_bank_conflicts, per CUDA case of tests/conformance/bank_conflicts.jsonl, both in one process
    and interleaved (`bench.bank_timing`): cold = both sides lowering the two layouts and counting, warm =
    repeated calls; and each side cold in a loop of its own (the way it was measured before); medians of
    paired ratios."""
    from checker.syntax.mlir_attr import print_attribute

    from .corpus import pairs
    from .sections import in_triton
    todo = [{"id": f"bank-{i}", "case": case, "texts": [print_attribute(R), print_attribute(S)]}
            for i, (case, R, S) in enumerate(pairs("bank_conflicts.jsonl", "reg_layout", "shared_layout",
                                                   limit=30 if quick else 150))
            if case.get("target", "cuda").startswith("cuda")]
    per_case, _ = in_triton("bank", todo, triton_python, 5)
    if per_case is None:
        return {}
    rows = [r for r in per_case.values() if "error" not in r]
    us = lambda key: spread([r[key] * 1e6 for r in rows])        # noqa: E731
    ratio = lambda a, b: spread([r[a] / r[b] for r in rows])     # noqa: E731
    return {"cases": len(rows), "ours_cold_us": us("cold"), "triton_first_us": us("triton_cold"),
            "ours_warm_us": us("warm"), "triton_repeat_us": us("triton_warm"),
            "cold_ratio": ratio("cold", "triton_cold"), "warm_ratio": ratio("warm", "triton_warm"),
            "ours_alone_cold_us": us("alone_cold"), "triton_alone_cold_us": us("triton_alone_cold"),
            "alone_cold_ratio": ratio("alone_cold", "triton_alone_cold")}


def scale_out(triton_python: str | None, quick: bool) -> dict:
    out = {"kernels": kernels(triton_python, quick), "startup": startup(quick)}
    out["bank"] = bank(triton_python, quick)        # before the sweep: Ray's processes outlive its run a while
    out["sweep"] = sweep_throughput(quick)
    return out
