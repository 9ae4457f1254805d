"""Fixture: the GPU probe kernels' TTGIR as one Triton version compiles them, for `layoutcheck diff` across versions.

    /work/tv/3.6.0/bin/python tools/probe_ttgir.py --out tests/versions/probes/3.6
    .venv/bin/python tools/probe_ttgir.py --out tests/versions/probes/3.9
    ... --public tests/versions/sm90_triton39_public.jsonl       # also shared/gpu's public probe kernels

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


def _spec(layout):
    """A probe record's layout (shared/gpu's ``{"kind": ..., fields}``) as a Gluon spec ``{"class", "params"}``."""
    if layout is None:
        return None
    kind, p = layout["kind"], {k: v for k, v in layout.items() if k not in ("kind", "triton_attr")}
    if kind in ("dot_op", "slice"):
        p["parent"] = _spec(p["parent"])
    if kind == "linear":
        p.setdefault("block_bases", [])
    if kind == "nvmma_shared":
        p.setdefault("rank", 2)
    if kind == "padded_shared":         # Triton 3.6 calls the CTA part block_bases, 3.9 cga_layout
        import inspect

        from triton.experimental.gluon import language as gl
        cta = "cga_layout" if "cga_layout" in inspect.signature(gl.PaddedSharedLayout.__init__).parameters \
            else "block_bases"
        p = {"interval_padding_pairs": p["interval_padding_pairs"], "offset_bases": p["offset_bases"],
             cta: [], "shape": p["shape"]}
    cls = {"blocked": "BlockedLayout", "swizzled_shared": "SwizzledSharedLayout", "nvmma_shared": "NVMMASharedLayout",
           "nvidia_mma": "NVMMADistributedLayout", "dot_op": "DotOperandLayout", "linear": "DistributedLinearLayout",
           "slice": "SliceLayout", "padded_shared": "PaddedSharedLayout"}[kind]
    return {"class": cls, "params": p}


def public_variants(path: str) -> list:
    """The probe kernels of a shared/gpu record file (sm90_triton39_public.jsonl), as ldmatrix_rows variants."""
    import json
    out = []
    for line in open(path):
        r = json.loads(line)
        dt = {"fp32": "fp32", "fp16": "fp16", "int8": "int8", "fp64": "fp64"}[r["dtype"]]
        out.append((f"gpu_{r['set']}_{r['id']}_90", "cuda:90", r["num_warps"], dt, r["shape"], _spec(r["R"]),
                    _spec(r["S"]), _spec(r["R2"])))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--public", metavar="JSONL", help="also the probe kernels of this shared/gpu record file")
    args = ap.parse_args()
    from triton_oracle import Oracle
    kernels = ldmatrix_rows._kernels()
    oracles: dict = {}

    def oracle_for(t):
        if t not in oracles:
            oracles[t] = Oracle(t)
        return oracles[t]
    os.makedirs(args.out, exist_ok=True)
    chosen = ((ldmatrix_rows.variants() if args.all else []) + ldmatrix_rows.probe_variants()
              + (public_variants(args.public) if args.public else []))
    for v in chosen:
        try:
            text = compile_ttgir(v, kernels, oracle_for)
        except Exception as e:  # noqa: BLE001 - a kernel this Triton cannot build is said, not fatal
            print(f"{v[0]}: not compiled: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                  file=sys.stderr)
            continue
        with open(os.path.join(args.out, f"{v[0]}.ttgir"), "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
