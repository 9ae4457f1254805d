"""Fixture: the GPU probe kernels' TTGIR as one Triton version compiles them, for `layoutcheck diff` across versions.

    /work/tv/3.6.0/bin/python tools/probe_ttgir.py --out tests/versions/probes/3.6
    .venv/bin/python tools/probe_ttgir.py --out tests/versions/probes/3.9

The kernels are tools/ldmatrix_rows.py's: its ``--probes`` set (the sm90 probe kernels of shared/gpu whose
shared-memory side is a transposed matrix instruction, where Triton's row choice changed in 3.9) and, with
``--all``, every variant. Each is compiled with ``triton.compile(GluonASTSource(...), target=GPUTarget("cuda",
90, 32))`` on a CPU and its TTGIR, with debug locations, written to ``<id>.ttgir`` after a one-line header
(the Triton version); the kernel is named after the variant, so the two versions' modules match by kernel.
tests/versions/test_diff.py diffs the two folders.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ldmatrix_rows  # noqa: E402


def compile_ttgir(v, kernels, oracle_for) -> str:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    vid, target, warps, dt, shape, R, S, R2 = v
    _, ptr = ldmatrix_rows.DTYPES[dt]
    oracle = oracle_for(target)
    layouts = {k: oracle.build(spec) for k, spec in (("R", R), ("S", S), ("R2", R2)) if spec is not None}
    fn = kernels[len(shape) - 2] if S is not None else kernels[2]
    dims = dict(zip(("B", "M", "N")[3 - len(shape):], shape))
    sig = {"inp": ptr, "out": ptr, **{k: "constexpr" for k in (*dims, *layouts)}}
    src = GluonASTSource(fn, sig, constexprs={**dims, **layouts})
    c = triton.compile(src, target=GPUTarget("cuda", int(target.split(":")[1]), 32), options={"num_warps": warps})
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    return (f"// {vid}: compiled by Triton {triton.__version__} on CPU (tools/probe_ttgir.py)\n"
            + c.asm["ttgir"].replace(root, ""))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    from triton_oracle import Oracle
    kernels = ldmatrix_rows._kernels()
    oracles: dict = {}

    def oracle_for(t):
        if t not in oracles:
            oracles[t] = Oracle(t)
        return oracles[t]
    os.makedirs(args.out, exist_ok=True)
    for v in (ldmatrix_rows.variants() if args.all else []) + ldmatrix_rows.probe_variants():
        text = compile_ttgir(v, kernels, oracle_for)
        with open(os.path.join(args.out, f"{v[0]}.ttgir"), "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
