"""The Triton side of the lowering benchmark; runs under a Python that has triton (>= 3.9).

    python bench/triton_lowering.py REPEAT < cases.json > times.json

cases.json is [{"id", "spec", "shape"}, ...] (Gluon specs). For each case the Gluon layout is
built into an MLIR attribute once, then Triton's C++ lowering is called through its Python
binding (`GluonOpBuilder.to_linear_layout`) REPEAT times; the output maps id -> {"build": seconds to
build the attribute, "first": the first lowering call, "repeat": [seconds per later call]} (or an error
string). build + first is Triton's cold text -> LinearLayout when the layout is new to the context. Triton caches lowered layouts per (attribute, shape) in its MLIR context, so
after the first call this measures a cache hit plus the binding's conversion of the bases to
Python lists, which is what a Python caller pays.
"""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

from triton_oracle import Oracle  # noqa: E402


def main() -> int:
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    cases = json.load(sys.stdin)
    oracle = Oracle()
    out: dict[str, object] = {}
    for c in cases:
        try:
            build = time.perf_counter()
            attr = oracle.build(c["spec"])._to_ir(oracle.b)
            build = time.perf_counter() - build
            first = time.perf_counter()
            oracle.b.to_linear_layout(attr, c["shape"])
            first = time.perf_counter() - first
            times = []
            for _ in range(repeat):
                t = time.perf_counter()
                oracle.b.to_linear_layout(attr, c["shape"])
                times.append(time.perf_counter() - t)
            out[c["id"]] = {"build": build, "first": first, "repeat": times}
        except Exception as e:  # a layout Triton rejects: recorded, not timed
            out[c["id"]] = f"{type(e).__name__}: {e}"
    json.dump(out, sys.stdout)
    sys.stdout.flush()
    os._exit(0)  # skip nanobind's leak report at interpreter exit


if __name__ == "__main__":
    sys.exit(main())
