"""The Triton side of the scale-out benchmark, a long-lived worker run by a Python that has triton 3.9:

    python bench/triton_worker.py        # then one JSON request per line on stdin, one JSON answer per line
    python bench/triton_worker.py --once KERNEL TARGET   # one uncached compile in a new process, then exit
                                                         # (the whole-process side: imports and start-up)

Requests (answered in order, so that the benchmark interleaves them with its own calls, pair by pair):
  {"op": "compile", "kernel": "matmul", "target": "cuda80"}  -> {"seconds": s}: triton.compile of
      tools/compile_kernels.py's kernel for that target, the whole pipeline, TRITON_ALWAYS_COMPILE=1 and a
      fresh cache folder per call (no cache hit); the first compile of the process also pays Triton's
      start-up (its answer says "first": true)
  {"op": "same_process", "kernel": ..., "target": ...}  -> {"compile": s, "verify": s, "checks": n}: issue 29's
      own measure: that compile, then at once, in this process, checker.verify (this checkout's) of the TTGIR
      text the compile printed (its locations in it), both engines, cold (the checker's lowering and SMT
      caches cleared first: a kernel it has never seen)
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
os.environ["TRITON_ALWAYS_COMPILE"] = "1"
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
warnings.simplefilter("ignore")


def compile_kernel(kernel: str, target: str) -> float:
    """Seconds of one triton.compile of tools/compile_kernels.py's `kernel` for `target`, in a fresh cache."""
    return compiled(kernel, target)[0]


def compiled(kernel: str, target: str) -> tuple[float, str]:
    """(seconds, the TTGIR it printed) of one triton.compile of tools/compile_kernels.py's `kernel` for
    `target`, in a fresh cache."""
    import compile_kernels as ck
    import triton
    fn, types, constexprs, options = ck.KERNELS[kernel]
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        src = triton.compiler.ASTSource(fn, ck._signature(fn, types, constexprs), constexprs,
                                        ck._divisibility(fn, types, constexprs))
        t = time.perf_counter()
        out = triton.compile(src, target=ck.TARGETS[target], options=options)
        return time.perf_counter() - t, out.asm["ttgir"]


def same_process(kernel: str, target: str) -> dict:
    """The compile, then checker.verify of its TTGIR in this process, cold (module docstring)."""
    if os.path.join(HERE, "..") not in sys.path:
        sys.path.insert(0, os.path.join(HERE, ".."))
    import checker
    import checker.encodings
    import checker.smt
    seconds, text = compiled(kernel, target)
    checker.encodings.clear_caches()
    checker.smt.clear_caches()
    t = time.perf_counter()
    report = checker.verify(text, engine="both")
    return {"compile": seconds, "verify": time.perf_counter() - t, "checks": report["summary"]["checks"]}


def main() -> int:
    if sys.argv[1:2] == ["--once"]:
        compile_kernel(sys.argv[2], sys.argv[3])
        return 0
    import triton
    compiled = 0
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "compile":
            answer = {"seconds": compile_kernel(req["kernel"], req["target"]), "first": compiled == 0}
            compiled += 1
        elif req["op"] == "same_process":
            answer = same_process(req["kernel"], req["target"])
        elif req["op"] == "version":
            answer = {"version": triton.__version__}
        else:
            answer = {"error": f"unknown op {req['op']}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
