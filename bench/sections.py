"""The four benchmark sections; each returns plain JSON data (times in µs unless named otherwise).

1. lowering: every family of the corpus, layoutcheck cold (cache cleared) and warm vs Triton's C++.
2. proofs: each property per engine over the corpus: p50, p99.
3. scaling: tensor sizes 2^10 .. 2^26, per property: F2, Z3, numpy enumeration, tensor-layouts.
4. end_to_end: `layoutcheck verify specs/` and a 10,000-check sweep, --jobs 1 and 2: wall and peak memory.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

import numpy as np

from checker import prove
from checker.encodings import lower
from checker.errors import CheckerError
from checker.layout import LinearLayout
from checker.syntax.gluon import from_gluon

from . import corpus
from .timing import clock, ratio, summary

# ------------------------------------------------------------------ 1. lowering


WARMUP_PER_FAMILY = 5        # the first distinct texts of each family: run on every side first, not timed


def lowering(cases: list[corpus.Case], triton_python: str | None, repeat: int) -> dict:
    """Text -> LinearLayout per family, cold and warm, against the code before this work and Triton's C++,
    interleaved call by call in one process (`bench.lowering_timing`: under the Triton Python when there is
    one). One case per distinct text (its first shape), so neither side has seen it; the first
    `WARMUP_PER_FAMILY` of each family only warm both sides up. Through the public API
    (``checker.lower(checker.parse_encoding(text), shape)``): per family the ratio of sums against Triton's
    cold, their geometric mean over the families and the worst family (``public_api``)."""
    from checker.syntax.mlir_attr import print_attribute
    seen, todo = set(), []
    warmups: dict[str, int] = defaultdict(int)
    for c in cases:
        try:
            text = print_attribute(c.encoding)
        except CheckerError:
            continue
        if text in seen and not c.id.startswith("large-"):
            continue
        seen.add(text)
        warmup = not c.id.startswith("large-") and warmups[c.family] < WARMUP_PER_FAMILY
        warmups[c.family] += warmup
        todo.append({"id": c.id, "family": c.family, "text": text, "shape": list(c.shape), "spec": c.spec,
                     "warmup": warmup})
    per_case, note = _interleaved(todo, triton_python, repeat)
    families = {}
    by_family: dict[str, list[dict]] = defaultdict(list)
    for _cid, v in per_case.items():
        by_family[v["family"]].append(v)
    for fam, rows in sorted(by_family.items()):
        def col(key, rows=rows):
            return [r[key] for r in rows if r.get(key) is not None]

        def paired(a, b, rows=rows):
            return [r[a] / r[b] for r in rows if r.get(a) and r.get(b)]
        row = {"cases": len(rows), "layoutcheck_cold": summary(col("cold")), "layoutcheck_warm": summary(col("warm")),
               "paired_cold": summary(col("paired_cold")),
               "baseline_cold": summary(col("baseline_cold")), "baseline_warm": summary(col("baseline_warm")),
               "triton_cold": summary(col("triton_cold")), "triton_first": summary(col("triton_first")),
               "triton": summary(col("triton_warm")),
               "ratio_cold_vs_baseline": summary(paired("cold", "baseline_cold"), 1),
               "ratio_warm_vs_baseline": summary(paired("warm", "baseline_warm"), 1),
               "ratio_cold_vs_triton_cold": summary(paired("paired_cold", "triton_cold"), 1),
               "ratio_cold_vs_triton_first": summary(paired("paired_cold", "triton_first"), 1),
               "ratio_warm_vs_triton_warm": summary(paired("warm", "triton_warm"), 1),
               "alone_cold": summary(col("alone_cold")), "triton_alone_cold": summary(col("triton_alone_cold")),
               "ratio_alone_cold_vs_triton_alone_cold": summary(paired("alone_cold", "triton_alone_cold"), 1)}
        row["ratio_cold_vs_triton"] = row["ratio_cold_vs_triton_cold"].get("median")
        row["ratio_warm_vs_triton"] = row["ratio_warm_vs_triton_warm"].get("median")
        row["public_cold"] = summary(col("public_cold"))
        row["ratio_public_vs_internal"] = summary(paired("public_cold", "cold"), 1)
        row["ratio_public_cold_vs_triton_cold"] = summary(paired("paired_public_cold", "triton_cold"), 1)
        both = [r for r in rows if r.get("paired_public_cold") and r.get("triton_cold")]
        row["public_sum_ratio"] = (round(sum(r["paired_public_cold"] for r in both) /
                                         sum(r["triton_cold"] for r in both), 3) if both else None)
        families[fam] = row
    large = {cid: {"layoutcheck_cold_us": round(v["cold"] * 1e6, 1),
                   "baseline_cold_us": round(v["baseline_cold"] * 1e6, 1) if v.get("baseline_cold") else None,
                   "triton_cold_us": round(v["triton_cold"] * 1e6, 1) if v.get("triton_cold") else None}
             for cid, v in per_case.items() if cid.startswith("large-")}
    sums = {f: r["public_sum_ratio"] for f, r in families.items() if r.get("public_sum_ratio")}
    public = {"geometric_mean": round(math.exp(sum(math.log(v) for v in sums.values()) / len(sums)), 3)
              if sums else None, "worst_family": max(sums, key=sums.get) if sums else None,
              "worst": max(sums.values()) if sums else None, "warmup_per_family": WARMUP_PER_FAMILY}
    return {"families": families, "large_shapes": large, "triton_note": note, "public_api": public, "statistic":
            f"per case: cold and warm the median of {repeat} calls (ours and the baseline interleaved); against "
            f"Triton's cold, one sample on each side, ours taken just before Triton's; per family the median "
            f"[p10-p90] over cases, ratios paired per case"}


def _interleaved(todo: list[dict], triton_python: str | None, repeat: int) -> tuple[dict, str]:
    """`bench.lowering_timing.time_cases` on the cases: under triton_python (`in_triton`), or here without
    the Triton side when there is no Triton."""
    from .lowering_timing import time_cases
    per_case, version = in_triton("lowering", todo, triton_python, repeat)
    if per_case is None:
        return time_cases(todo, repeat), version
    return per_case, (
        f"Triton {version} through {triton_python or sys.executable}, in the same process as layoutcheck (this "
        f"checkout) and interleaved with it case by case: GluonOpBuilder.to_linear_layout; cold = building the "
        f"attribute + the first call for the layout and shape; warm = the median of {repeat} later calls (Triton "
        f"caches per attribute and shape in its MLIR context)")


def in_triton(section: str, todo: list, triton_python: str | None, repeat: int) -> tuple[dict | None, str]:
    """(bench/in_triton.py SECTION's timings of the cases, Triton's version) run under triton_python (or this
    Python when it has Triton); (None, why not) when there is no Triton or the run fails."""
    if not triton_python:
        try:
            import triton  # noqa: F401
            triton_python = sys.executable
        except ImportError:
            return None, "Triton is not installed: its column is empty (give --triton-python PATH)"
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "in_triton.py")
    run = subprocess.run([triton_python, script, section, str(repeat)], input=json.dumps(todo), capture_output=True,
                         text=True, env={**os.environ, "TRITON_DEFAULT_FP_FUSION": "1"}, cwd=corpus.ROOT)
    if run.returncode != 0:
        return None, f"Triton run failed: {run.stderr.strip().splitlines()[-1:] or run.returncode}"
    version = subprocess.run([triton_python, "-c", "import triton; print(triton.__version__)"],
                             capture_output=True, text=True).stdout.strip()
    return json.loads(run.stdout), version


# ------------------------------------------------------------------ 2. proofs

PROPERTIES = ("surjective", "injective", "equivalent", "conversion", "bank_conflict_free")


def proofs(quick: bool) -> dict:
    limit = 40 if quick else None
    layouts = [c for c in corpus.lowering_cases(limit) if not c.id.startswith("large-")]
    converts = corpus.pairs("convert_trivial.jsonl", "src", "dst", 20 if quick else None)
    banks = corpus.pairs("bank_conflicts.jsonl", "reg_layout", "shared_layout", 20 if quick else None)
    times: dict[str, dict[str, list[float]]] = {p: {"f2": [], "z3": []} for p in PROPERTIES}
    for engine in ("f2", "z3"):
        for c in layouts:
            for prop in ("surjective", "injective"):
                times[prop][engine].append(_timed(getattr(prove, prop), c.encoding, c.shape, engine=engine))
        for case, a, b in converts:
            shape = case["shape"]
            times["equivalent"][engine].append(_timed(prove.equivalent, a, b, shape, engine=engine))
            times["conversion"][engine].append(_timed(prove.conversion, a, b, shape, engine=engine))
        for case, reg, shared in banks:
            hw = "gfx942" if case.get("target", "").startswith("hip") else "sm90"
            times["bank_conflict_free"][engine].append(
                _timed(prove.bank_conflict_free, reg, shared, case["shape"], case["element_bitwidth"],
                       hardware=hw, engine=engine))
    return {p: {e: summary([t for t in ts if t is not None], 1e3) for e, ts in per.items()}
            for p, per in times.items()} | {"unit": "ms", "corpus": {
                "layouts": len(layouts), "conversion_pairs": len(converts), "bank_pairs": len(banks)},
                "dense_random_injective": dense_random_injective((16,) if quick else (16, 20, 24))}


def dense_random_injective(widths) -> list[dict]:
    """The hard case for a solver: n random dense n-bit bases (ms per engine)."""
    import random

    from checker.properties.injective import injective
    from checker.verdict import Engines
    rng = random.Random(1)
    out = []
    for n in widths:
        L = LinearLayout([("register", [(rng.getrandbits(n),) for _ in range(n)])], [("dim0", 1 << n)])
        row = {"bits": n}
        for engine in ("f2", "z3"):
            t = time.perf_counter()
            row["verdict"] = injective(L, engines=Engines(engine)).status
            row[engine] = round((time.perf_counter() - t) * 1e3, 3)
        out.append(row)
    return out


def _timed(fn, *args, **kw) -> float | None:
    """Seconds of one proof (lowering already cached); None when the property does not apply."""
    from checker.errors import CheckerError
    try:
        fn(*args, **kw)                 # warm the lowering cache
        t = time.perf_counter()
        fn(*args, **kw)
        return time.perf_counter() - t
    except CheckerError:
        return None


# ------------------------------------------------------------------ 3. scaling

def scaling_layouts(log_size: int) -> tuple:
    """A blocked register layout, a second one, and a swizzled shared layout for 2^log_size elements."""
    side = 1 << (log_size // 2)
    warps = [4, 1] if log_size <= 14 else [8, 1] if log_size <= 20 else [4, 4]
    a = from_gluon({"class": "BlockedLayout", "params": {"size_per_thread": [1, 8], "threads_per_warp": [4, 8],
                                                         "warps_per_cta": warps, "order": [1, 0]}})
    b = from_gluon({"class": "BlockedLayout", "params": {"size_per_thread": [8, 1], "threads_per_warp": [8, 4],
                                                         "warps_per_cta": warps[::-1], "order": [0, 1]}})
    s = from_gluon({"class": "SwizzledSharedLayout", "params": {"vec": 8, "per_phase": 1, "max_phase": 8,
                                                                "order": [1, 0]}})
    return [side, side], a, b, s


def enumerate_layout(L: LinearLayout) -> np.ndarray:
    """Every hardware index's element as a row-major linear index: all 2^n inputs (numpy).

    With power-of-two dim sizes, row-major packing keeps the dims' bits apart, so the XOR of
    coordinates is the XOR of their linear indices and the doubling below is exact."""
    sizes = [s for _, s in L.out_dim_sizes]
    strides = [int(np.prod(sizes[k + 1:])) for k in range(len(sizes))]
    values = np.zeros(1, dtype=np.int64)
    for _, bs in L._ins:
        for b in bs:
            values = np.concatenate([values, values ^ sum(c * st for c, st in zip(b, strides))])
    return values


def enumeration_baseline(prop: str, shape, a, b, s) -> bool | str:
    """The property decided by brute force over every element (numpy, vectorized as well as it goes);
    for conversion, its level."""
    La, total = lower(a, shape), shape[0] * shape[1]
    va = enumerate_layout(La)
    if prop == "surjective":
        return np.unique(va).size == total
    if prop == "injective":
        return np.unique(va).size == va.size
    if prop == "equivalent":
        return bool(np.array_equal(va, enumerate_layout(lower(b, shape))))
    if prop == "conversion":                    # the level: the first unit (thread, warp, CTA) that keeps
        Lb = lower(b, shape)                    # every (unit, element) b needs among a's
        vb = enumerate_layout(Lb)
        for level, unit in (("register", ("register",)), ("warp", ("register", "lane")), ("cta", None)):
            per_a = 1 if unit is None else int(np.prod([La.in_dim_size(d) for d in unit]))
            per_b = 1 if unit is None else int(np.prod([Lb.in_dim_size(d) for d in unit]))
            key_a = (np.arange(va.size) // per_a if unit else 0) * total + va
            key_b = (np.arange(vb.size) // per_b if unit else 0) * total + vb
            if np.isin(key_b, key_a).all():
                return level
        return "cross_cta"
    # bank_conflict_free of the scaling pair (16-byte f16 vectors: 8 registers per access, 8 lanes per
    # phase): the offset of every access, grouped by (warp, instruction, phase), distinct words per bank
    where = np.empty(total, dtype=np.int64)
    where[enumerate_layout(lower(s, shape))] = np.arange(total)
    off = where[va]
    regs = La.in_dim_size("register")
    idx = np.arange(va.size)
    reg, lane, warp = idx % regs, (idx // regs) % 32, idx // (regs * 32)
    phase = (warp * (regs // 8) + reg // 8) * 4 + lane // 8
    word = off * 2 // 4
    keys = np.unique(np.stack([phase, word % 32, word]), axis=1)
    return int(np.bincount(keys[0] * 32 + keys[1]).max()) == 1


def _has_tensor_layouts() -> bool:
    import importlib.util
    return importlib.util.find_spec("tensor_layouts") is not None


def tensor_layouts_baseline(prop: str, shape, a) -> None:
    """tensor-layouts' enumeration (is_injective / is_surjective) on the same map, built from its F2 matrix."""
    from tensor_layouts import Layout
    from tensor_layouts.analysis import is_injective, is_surjective
    L = lower(a, shape)
    sizes = [s for _, s in L.out_dim_sizes]
    strides = [int(np.prod(sizes[k + 1:])) for k in range(len(sizes))]
    cols = [sum(c * st for c, st in zip(b, strides)) for _, bs in L._ins for b in bs]
    layout = Layout(tuple([2] * len(cols)), tuple(cols))
    (is_injective if prop == "injective" else is_surjective)(layout)


SCALING_PROPERTIES = ("surjective", "injective", "equivalent", "conversion", "bank_conflict_free")


def _scaling_calls(shape, a, b, s) -> dict:
    """The proof of each of SCALING_PROPERTIES on the scaling layouts, as a function of the engine."""
    return {"surjective": lambda e: prove.surjective(a, shape, engine=e),
            "injective": lambda e: prove.injective(a, shape, engine=e),
            "equivalent": lambda e: prove.equivalent(a, b, shape, engine=e),
            "conversion": lambda e: prove.conversion(a, b, shape, engine=e),
            "bank_conflict_free": lambda e: prove.bank_conflict_free(a, s, shape, 16, hardware="sm90", engine=e)}


def scaling(quick: bool, enumeration_limit: int = 24, tensor_layouts_limit: int = 16) -> dict:
    logs = [10, 12, 14] if quick else list(range(10, 27, 2))
    rows = []
    for n in logs:
        shape, a, b, s = scaling_layouts(n)
        calls = _scaling_calls(shape, a, b, s)
        for enc in (a, b, s):
            lower(enc, shape)
        for prop in SCALING_PROPERTIES:
            row = {"log2_elements": n, "shape": shape, "property": prop}
            for engine in ("f2", "z3"):
                row[engine] = min(clock(lambda calls=calls, prop=prop, engine=engine: calls[prop](engine),
                                        1 if n >= 22 else 3))
            proof = calls[prop]("f2")
            row["verdict"] = proof.status if prop != "conversion" else f"level {proof.details['level']}"
            row["enumeration"] = None
            if n <= enumeration_limit:
                t = time.perf_counter()
                answer = enumeration_baseline(prop, shape, a, b, s)
                row["enumeration"] = time.perf_counter() - t
                row["enumeration_agrees"] = (answer == proof.details["level"] if prop == "conversion"
                                             else answer == proof.holds)
            row["tensor_layouts"] = (min(clock(lambda prop=prop, shape=shape, a=a:
                                               tensor_layouts_baseline(prop, shape, a), 1))
                                     if prop in ("surjective", "injective") and n <= tensor_layouts_limit
                                     and _has_tensor_layouts() else None)
            row["enumeration_over_f2"] = ratio(row["enumeration"], row["f2"])
            rows.append(row)
    at_max = [r for r in rows if r["log2_elements"] == logs[-1]]
    return {"rows": rows, "unit": "s",
            "all_properties_at_largest": {"log2_elements": logs[-1],
                                          "f2_seconds": round(sum(r["f2"] for r in at_max), 4),
                                          "z3_seconds": round(sum(r["z3"] for r in at_max), 4)},
            "enumeration_limit_log2": enumeration_limit, "tensor_layouts_limit_log2": tensor_layouts_limit}


# ------------------------------------------------------------------ 4. end to end

SWEEP = """\
version: 1
encodings:
  blk: {{kind: blocked, size_per_thread: [1, 1], threads_per_warp: [4, 8], warps_per_cta: [2, 2], order: [1, 0]}}
checks:
{checks}
"""
GRID = """\
    sweep:
      size_per_thread: [[1, 1], [1, 2], [1, 4], [2, 1], [2, 2]]
      threads_per_warp: [[1, 32], [2, 16], [4, 8], [8, 4], [16, 2], [32, 1]]
      warps_per_cta: [[1, 4], [2, 2], [4, 1]]
      order: [[1, 0], [0, 1]]
      shape: {shapes}
"""


def sweep_spec(folder: str, quick: bool) -> tuple[str, int]:
    """7 checks of 1,440 points each (180 blocked layouts x 8 shapes), every point a distinct check
    (identical checks would be proved once, `checker.run.runner.proof_key`): surjective over 32 shapes and
    injective_up_to_broadcast over 24 others, 10,080 checks (quick: 360)."""
    sizes = (8, 16, 32, 64, 128, 256, 512, 1024)
    grid = [f"[{a}, {b}]" for a in sizes for b in sizes][:56]
    sets = [grid[8 * i:8 * i + 8] for i in range(7)]
    if quick:
        sets = [["[16, 16]", "[64, 64]"]]
    n_shapes = len(sets[0])
    props = ["surjective"] * 4 + ["injective_up_to_broadcast"] * 3
    props = props[:len(sets)]
    checks = "".join(f"  - id: sweep-{i}-{p}\n    prove: {p}\n    layout: blk\n    shape: [64, 64]\n"
                     + GRID.format(shapes="[" + ", ".join(sets[i]) + "]") for i, p in enumerate(props))
    path = os.path.join(folder, "sweep.yaml")
    with open(path, "w") as f:
        f.write(SWEEP.format(checks=checks))
    return path, len(props) * 5 * 6 * 3 * 2 * n_shapes


def end_to_end(quick: bool) -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        sweep, n = sweep_spec(tmp, quick)
        runs = {"specs": ["specs/"], f"sweep_{n}": [sweep]}
        for name, paths in runs.items():
            for jobs in (1, 2):
                out[f"{name}_jobs{jobs}"] = _verify(paths, jobs, os.path.join(tmp, f"r{name}{jobs}"))
    return out


def _verify(paths: list[str], jobs: int, report_dir: str) -> dict:
    """Wall time and peak resident memory (largest process) of one `layoutcheck verify` run."""
    code = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
            "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode; "
            "print(rc, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    cmd = [sys.executable, "-c", code, sys.executable, "-m", "checker", "verify", *paths, "--jobs", str(jobs),
           "--quiet", "--format", "json", "--report-dir", report_dir]
    rc, wall, rss = subprocess.run(cmd, capture_output=True, text=True, cwd=corpus.ROOT).stdout.split()
    with open(os.path.join(report_dir, "report.json")) as f:
        checks = json.load(f)["summary"]["checks"]
    return {"exit_code": int(rc), "checks": checks, "wall_seconds": round(float(wall), 3),
            "peak_rss_mib": round(int(rss) / 1024, 1)}
