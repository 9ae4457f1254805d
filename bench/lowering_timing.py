"""Text -> LinearLayout, timed case by case on three sides, interleaved call by call in one process:
layoutcheck (its internal path, ``encodings.lower(mlir_attr.parse_attribute(text), shape)``, and the public
API users come through, ``checker.lower(checker.parse_encoding(text), shape)``), the code before issue 13
(its parser, the generic composition: `baseline_parser`) and, given an oracle (`tools/triton_oracle.py`),
Triton's C++ through its Python binding. Cases marked ``warmup`` are run once on every side first and not
timed (`warm_up`): the timed cases are new to both sides.

    per_case = time_cases([{"id", "family", "text", "shape", "spec"}, ...], repeat=5, oracle=Oracle())

With Triton, this runs under the Python that has it (bench/triton_lowering.py): both sides of a ratio are
then timed within microseconds of each other, so a slow moment of the machine hits both. Per case:

1. cold, `repeat` times, ours then the baseline: every cache cleared (parse, lowering, cached tiles) and
   the text parsed afresh, then lowered;
2. Triton cold, once: the attribute built from the Gluon spec, then the first lowering call (Triton's
   context keeps both, so a second cold sample of the same case cannot be had); ``paired_cold`` is our
   cold sample taken just before it, the same statistic (one sample) on both sides of that ratio
   (``paired_public_cold``: the same through the public API);
3. warm, `repeat` times, ours, the baseline, Triton: the same text again (ours: the parse and the lowering
   cached; the baseline parses again; Triton: its cached lowering and the binding's conversion to lists).

Then, for comparison with the way the bench measured before (each side in a loop of its own, where the
code of the side is hot from the case before), two more passes over all the cases, one sample each:
ours cold, case after case (``alone_cold``), then Triton cold in a fresh context, case after case
(``triton_alone_cold``). Interleaved, Triton's first call pays for its code and data being out of the
CPU's caches (after our calls); back to back it does not. layoutcheck runs inside a compile, between
Triton's passes, so the interleaved figure is the one the targets are read against.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

from .timing import percentile

ROOT = Path(__file__).resolve().parents[1]
BASELINE_COMMIT = "82f0383"          # the tree before issue 13's items 1-3 (bench.startup's baseline too)


def baseline_parser():
    """mlir_attr's parser as it was at BASELINE_COMMIT, loaded beside the current one (None without git)."""
    try:
        source = subprocess.run(["git", "show", f"{BASELINE_COMMIT}:checker/syntax/mlir_attr.py"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    spec = importlib.util.spec_from_loader("checker.syntax._mlir_attr_baseline", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "checker.syntax"
    sys.modules[spec.name] = module
    exec(compile(source, "<baseline mlir_attr.py>", "exec"), module.__dict__)
    return module.parse_attribute


def generic(enc, shape):
    """The reference lowering (the generic composition, as before the closed forms), uncached."""
    enc.validate()
    enc.check_shape(shape)
    return getattr(enc, "to_linear_layout_generic", enc.to_linear_layout)(shape)


def _median(xs):
    return percentile(xs, 50) if xs else None


def _cold(text: str, shape: tuple) -> float:
    """Seconds of one cold text -> LinearLayout: every cache cleared, the text parsed afresh, then lowered."""
    from checker.encodings import clear_caches, lower
    from checker.syntax import mlir_attr
    mlir_attr.clear_parse_cache()
    clear_caches()
    t = time.perf_counter()
    lower(mlir_attr.parse_attribute(text), shape)
    return time.perf_counter() - t


def _public_cold(text: str, shape: tuple) -> float:
    """Seconds of one cold call through the public API, as users, the CLI, `run` and the pytest plugin come
    in: ``checker.lower(checker.parse_encoding(text), shape)``, every cache cleared first."""
    import checker
    from checker.encodings import clear_caches
    from checker.syntax import mlir_attr
    mlir_attr.clear_parse_cache()
    clear_caches()
    t = time.perf_counter()
    checker.lower(checker.parse_encoding(text), list(shape))
    return time.perf_counter() - t


def warm_up(cases: list[dict], oracle=None) -> None:
    """Run every side once on `cases` (a set disjoint from the timed one): the code of both sides is loaded
    and has run before the first timed case, and no timed case has been seen by either side."""
    for case in cases:
        shape = tuple(case["shape"])
        _cold(case["text"], shape)
        _public_cold(case["text"], shape)
        if oracle is not None:
            try:
                oracle.b.to_linear_layout(oracle.build(case["spec"])._to_ir(oracle.b), list(shape))
            except Exception:                       # noqa: BLE001 (a layout Triton rejects warms nothing)
                pass


def time_cases(todo: list[dict], repeat: int, oracle=None) -> dict[str, dict]:
    """id -> {"family", "cold", "warm", "baseline_cold", "baseline_warm"[, "paired_cold", "triton_build",
    "triton_first", "triton_cold", "triton_warm"] or "triton_error"}: seconds, medians of `repeat` calls
    except the single samples of step 2 (module docstring)."""
    from checker.encodings import lower
    from checker.syntax import mlir_attr
    parse = mlir_attr.parse_attribute
    old_parse = baseline_parser()
    warm_up([c for c in todo if c.get("warmup")], oracle)
    todo = [c for c in todo if not c.get("warmup")]
    out: dict[str, dict] = {}
    for case in todo:
        text, shape = case["text"], tuple(case["shape"])
        cold, public, base_cold, warm, base_warm, tri_warm = [], [], [], [], [], []
        for _ in range(repeat):
            cold.append(_cold(text, shape))
            public.append(_public_cold(text, shape))
            if old_parse is not None:
                t = time.perf_counter()
                generic(old_parse(text), shape)
                base_cold.append(time.perf_counter() - t)
        row = {"family": case["family"]}
        attr = None
        if oracle is not None:
            row["paired_cold"] = _cold(text, shape)
            row["paired_public_cold"] = _public_cold(text, shape)
            try:
                t = time.perf_counter()
                attr = oracle.build(case["spec"])._to_ir(oracle.b)
                row["triton_build"] = time.perf_counter() - t
                t = time.perf_counter()
                oracle.b.to_linear_layout(attr, list(shape))
                row["triton_first"] = time.perf_counter() - t
                row["triton_cold"] = row["triton_build"] + row["triton_first"]
            except Exception as e:  # a layout Triton rejects: recorded, not timed
                row = {"family": case["family"], "triton_error": f"{type(e).__name__}: {e}"}
                attr = None
        for _ in range(repeat):
            t = time.perf_counter()
            lower(parse(text), shape)
            warm.append(time.perf_counter() - t)
            if old_parse is not None:
                t = time.perf_counter()
                lower(old_parse(text), shape)       # before parse-once: a repeated text is parsed again
                base_warm.append(time.perf_counter() - t)
            if attr is not None:
                t = time.perf_counter()
                oracle.b.to_linear_layout(attr, list(shape))
                tri_warm.append(time.perf_counter() - t)
        row.update(cold=_median(cold), public_cold=_median(public), warm=_median(warm),
                   baseline_cold=_median(base_cold), baseline_warm=_median(base_warm))
        if tri_warm:
            row["triton_warm"] = _median(tri_warm)
        out[case["id"]] = row
    if oracle is not None:
        for case in todo:
            out[case["id"]]["alone_cold"] = _cold(case["text"], tuple(case["shape"]))
        fresh = type(oracle)()              # a new MLIR context: nothing built or lowered in it yet
        for case in todo:
            if "triton_error" in out[case["id"]]:
                continue
            t = time.perf_counter()
            fresh.b.to_linear_layout(fresh.build(case["spec"])._to_ir(fresh.b), list(case["shape"]))
            out[case["id"]]["triton_alone_cold"] = time.perf_counter() - t
    return out
