"""layoutcheck's benchmark: every figure beside its baseline, measured in the same run.

    pip install '.[bench]'
    python -m bench.run [--quick] [--triton-python PATH] [--out bench/results]

writes ``latest.json`` (every number, the machine and the versions), ``latest.md`` (the tables
the README links) and ``scaling.png`` (time against tensor size, log axes). ``--quick`` runs the
smallest configuration (the smoke test uses it). Triton is optional: without it, or without
``--triton-python`` naming a Python that has it, the Triton column of the lowering table is empty.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

from . import corpus, sections
from .report import render_markdown, render_plot

TARGETS = {"lowering_ratio_cold": 0.5, "lowering_ratio_warm": 0.1, "process_s": 0.15, "f2_p50_ms": 2.0,
           "z3_p50_ms": 30.0, "p99_ms": 200.0,
           "all_properties_8192x8192_s": 1.0, "enumeration_over_f2_at_2^24": 1000.0,
           "kernel_process_ratio": 0.25, "kernel_in_process_ratio": 0.05, "jobs2_speedup": 1.7, "sweep_both_s": 30.0,
           "bank_ratio": 1.0}
SECTIONS = ("lowering", "startup", "proofs", "scaling", "end_to_end", "scale_out")


def machine() -> dict:
    import numpy
    import z3
    info = {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
            "z3": z3.get_version_string(), "numpy": numpy.__version__}
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), None)
        with open("/proc/meminfo") as f:
            info["memory_gib"] = round(int(f.readline().split()[1]) / 2 ** 20, 1)
    except OSError:
        pass
    try:
        import tensor_layouts
        info["tensor_layouts"] = getattr(tensor_layouts, "__version__", "installed")
    except ImportError:
        info["tensor_layouts"] = None
    info["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                    cwd=corpus.ROOT).stdout.strip() or None
    return info


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the smallest configuration (seconds)")
    ap.add_argument("--triton-python", help="a Python with triton installed, for the lowering baseline")
    ap.add_argument("--out", default=str(corpus.ROOT / "bench" / "results"))
    ap.add_argument("--skip", nargs="*", default=[], choices=SECTIONS)
    ap.add_argument("--only", nargs="*", default=[], choices=SECTIONS,
                    help="run only these sections; the others are kept from the previous latest.json (with its "
                         "date), so that latest.md keeps every section")
    args = ap.parse_args(argv)
    if args.only:
        args.skip = [s for s in SECTIONS if s not in args.only]
    os.makedirs(args.out, exist_ok=True)
    result = {"machine": machine(), "quick": args.quick, "targets": TARGETS,
              "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    start = time.perf_counter()
    if "lowering" not in args.skip:
        cases = corpus.lowering_cases(limit=60 if args.quick else None)
        result["lowering"] = sections.lowering(cases, args.triton_python, repeat=3 if args.quick else 5)
        _progress("lowering", start)
    if "startup" not in args.skip:
        from .startup import startup
        result["startup"] = startup(args.quick)
        _progress("startup", start)
    if "proofs" not in args.skip:
        result["proofs"] = sections.proofs(args.quick)
        _progress("proofs", start)
    if "scaling" not in args.skip:
        result["scaling"] = sections.scaling(args.quick)
        _progress("scaling", start)
    if "end_to_end" not in args.skip:
        result["end_to_end"] = sections.end_to_end(args.quick)
        _progress("end_to_end", start)
    if "scale_out" not in args.skip:
        from .scale import scale_out
        result["scale_out"] = scale_out(args.triton_python, args.quick)
        result["scale_out_date"] = result["date"]
        _progress("scale_out", start)
    result["seconds"] = round(time.perf_counter() - start, 1)
    if args.only:
        _keep_previous(result, os.path.join(args.out, "latest.json"))
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump(result, f, indent=1)
    with open(os.path.join(args.out, "latest.md"), "w") as f:
        f.write(render_markdown(result))
    if "scaling" in result:
        render_plot(result["scaling"], os.path.join(args.out, "scaling.png"))
    print(f"wrote {args.out}/latest.json, latest.md" + (", scaling.png" if "scaling" in result else ""),
          file=sys.stderr)
    return 0


def _keep_previous(result: dict, path: str) -> None:
    """Sections not run this time, taken from the previous latest.json (its machine line and date kept
    beside them as previous_*)."""
    try:
        with open(path) as f:
            old = json.load(f)
    except (OSError, ValueError):
        return
    for name in SECTIONS:
        if name not in result and name in old:
            result[name] = old[name]
    if "scale_out" in result and "scale_out_date" not in result:
        result["scale_out_date"] = old.get("scale_out_date")
    result["previous"] = {"date": old.get("date"), "machine": old.get("machine"), "seconds": old.get("seconds")}


def _progress(name: str, start: float) -> None:
    print(f"[{time.perf_counter() - start:7.1f} s] {name} done", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
