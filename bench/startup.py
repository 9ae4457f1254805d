"""Whole-process and import times of `layoutcheck`, against the tree before the closed-form work (same run).

The baseline is the source of BASELINE_COMMIT extracted with `git archive` into a temporary folder and run
with PYTHONPATH pointing at it; both sides run from compiled bytecode (a private PYTHONPYCACHEPREFIX, warmed
once) and alternate, so a slow moment of the machine hits both. Figures: median of the paired samples with
p10-p90, and the median of the per-pair ratios.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time

from . import corpus
from .lowering_timing import BASELINE_COMMIT  # the tree before issue 13's items 1-3
from .timing import percentile

TEXT = ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>")
COMMANDS = {
    "lower": ["lower", TEXT, "--shape", "64x64"],
    "show": ["show", TEXT, "--shape", "16x16"],
    "prove --engine f2": ["prove", "injective", TEXT, "--shape", "64x64", "--engine", "f2"],
}


def _extract_baseline(dest: str) -> bool:
    try:
        tar = subprocess.run(["git", "archive", BASELINE_COMMIT, "checker"], cwd=corpus.ROOT, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return False
    tarfile.open(fileobj=io.BytesIO(tar)).extractall(dest)
    return True


_CWD = tempfile.gettempdir()         # neither tree: `python -m` puts the working folder first on sys.path


def _env(root: str, cache: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = root
    env["PYTHONPYCACHEPREFIX"] = cache
    return env


def _wall(argv, env) -> float:
    t = time.perf_counter()
    subprocess.run(argv, env=env, capture_output=True, check=False, cwd=_CWD)
    return time.perf_counter() - t


def _import_us(env, module: str) -> tuple[float, bool]:
    """(cumulative µs of `import module` by -X importtime, whether z3 was imported)."""
    run = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], env=env,
                         capture_output=True, text=True, cwd=_CWD)
    total, z3 = float("nan"), False
    for line in run.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == "z3":
            z3 = True
        if len(parts) == 3 and parts[2].rstrip() == f" {module}":
            total = float(parts[1])
    return total, z3


def _stats(xs: list[float], scale: float) -> dict:
    return {"median": round(percentile(xs, 50) * scale, 4), "p10": round(percentile(xs, 10) * scale, 4),
            "p90": round(percentile(xs, 90) * scale, 4), "n": len(xs)}


def startup(quick: bool) -> dict:
    repeat = 5 if quick else 21
    with tempfile.TemporaryDirectory() as tmp:
        base_root = os.path.join(tmp, "base")
        if not _extract_baseline(base_root):
            return {"note": f"git archive {BASELINE_COMMIT} failed: no baseline"}
        sides = {"new": _env(str(corpus.ROOT), os.path.join(tmp, "pyc-new")),
                 "baseline": _env(base_root, os.path.join(tmp, "pyc-base"))}
        for env in sides.values():                                  # compile once, for both sides
            _wall([sys.executable, "-m", "checker", *COMMANDS["prove --engine f2"]], env)
            _import_us(env, "checker.prove")
        out: dict = {"baseline_commit": BASELINE_COMMIT, "repeat": repeat, "commands": {}}
        for name, args in COMMANDS.items():
            times = {"new": [], "baseline": []}
            for _ in range(repeat):
                for side, env in sides.items():
                    times[side].append(_wall([sys.executable, "-m", "checker", *args], env))
            ratios = [a / b for a, b in zip(times["new"], times["baseline"])]
            out["commands"][name] = {side: _stats(ts, 1.0) for side, ts in times.items()} | {
                "ratio": _stats(ratios, 1.0)}
        imports = {"new": [], "baseline": []}
        z3 = {}
        for _ in range(repeat):
            for side, env in sides.items():
                us, loaded = _import_us(env, "checker.prove")
                imports[side].append(us)
                z3[side] = loaded
        ratios = [a / b for a, b in zip(imports["new"], imports["baseline"])]
        out["import_checker_prove_ms"] = {side: _stats(v, 1e-3) for side, v in imports.items()} | {
            "ratio": _stats(ratios, 1.0), "z3_loaded": z3}
        return out
