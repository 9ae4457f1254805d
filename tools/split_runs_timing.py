"""Time loads whose thread runs are several vectors long against one-vector runs, on an NVIDIA GPU.

Triton's Coalesce pass gives a load's threads runs of more than 128 bits (CoalesceUtils.cpp
``buildCoalescedEncoding`` caps them for stores only). Such a load is issued as run / vector requests per thread
and each request touches up to that many times its minimum of 32-byte sectors (what Nsight Compute's l1tex
sector counters measure: tools/coalescing_probe.py's ``f32_row_spt8``); the same thread's next request reads
the rest of each sector, from L1. This tool measures what that costs in time: Gluon kernels with a pinned
``BlockedLayout([SPT], [32], [4], [0])`` over f32 blocks of 4096 elements, SPT = 4 (one 16-byte vector a run),
8 (two) and 16 (four):

- ``sum``:  every block summed into one float (``gl.sum`` then ``gl.atomic_add``): the load alone moves data;
- ``copy``: y = 2 x, the load in that layout and the store in SPT = 4 (``gl.convert_layout`` between).

Each at 1 GiB, 64 MiB and 16 MiB of input (from DRAM; the last two fit H100's 50 MB L2 once read), timed with
``triton.testing.do_bench`` (median of all repetitions), three rounds interleaved, the best round kept.

    python tools/split_runs_timing.py measure --out DIR      # on the GPU: DIR/split_runs_<device>.json + TTGIR

The stored result is ``tools/coalescing_probe/split_runs/``; ``tests/properties/test_coalesced_runs.py`` reads
it (the timings, and layoutcheck's verdict on each stored TTGIR).
"""

from __future__ import annotations

import argparse
import functools
import json
import re
from pathlib import Path

SPTS = (4, 8, 16)
SIZES = (1 << 28, 1 << 24, 1 << 22)        # f32 elements: 1 GiB, 64 MiB, 16 MiB
BLOCK, WARPS = 4096, 4


def kernels():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def total(x, y, BLOCK: gl.constexpr, SPT: gl.constexpr, WARPS: gl.constexpr):
        layout: gl.constexpr = gl.BlockedLayout([SPT], [32], [WARPS], [0])
        offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
        gl.atomic_add(y, gl.sum(gl.load(x + offs), axis=0))

    @gluon.jit
    def copy(x, y, BLOCK: gl.constexpr, SPT: gl.constexpr, WARPS: gl.constexpr):
        layout: gl.constexpr = gl.BlockedLayout([SPT], [32], [WARPS], [0])
        out: gl.constexpr = gl.BlockedLayout([4], [32], [WARPS], [0])
        offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
        v = gl.load(x + offs) * 2
        o = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=out)
        gl.store(y + o, gl.convert_layout(v, out))

    return {"sum": total, "copy": copy}


def measure(out: Path) -> dict:
    import torch
    import triton
    from triton.testing import do_bench
    out.mkdir(parents=True, exist_ok=True)
    device = torch.cuda.get_device_name()
    result = {"device": device, "triton": triton.__version__, "block": BLOCK, "warps": WARPS, "cases": []}
    for name, kern in kernels().items():
        for n in SIZES:
            x = torch.randn(n, device="cuda")
            y = torch.zeros(1, device="cuda") if name == "sum" else torch.empty_like(x)
            grid = (n // BLOCK,)
            times: dict[int, list[float]] = {}
            for _round in range(3):
                for spt in SPTS:
                    compiled = kern[grid](x, y, BLOCK, spt, WARPS, num_warps=WARPS)
                    if n == SIZES[0] and _round == 0:
                        (out / f"{name}_spt{spt}.ttgir").write_text(compiled.asm["ttgir"])
                        loads = re.findall(r"ld\.global[.\w]*", compiled.asm["ptx"])
                        result.setdefault("ptx_loads", {})[f"{name}_spt{spt}"] = loads
                    launch = functools.partial(kern[grid], x, y, BLOCK, spt, WARPS, num_warps=WARPS)
                    ms = sorted(do_bench(launch, rep=300, return_mode="all"))
                    times.setdefault(spt, []).append(ms[len(ms) // 2])
            moved = n * 4 * (1 if name == "sum" else 2)
            best = {spt: min(t) for spt, t in times.items()}
            result["cases"].append({"kernel": name, "elements": n, "bytes_moved": moved,
                                    "us": {str(s): round(t * 1e3, 3) for s, t in best.items()},
                                    "ratio_to_spt4": {str(s): round(t / best[4], 4) for s, t in best.items()}})
            print(name, n, result["cases"][-1]["us"], result["cases"][-1]["ratio_to_spt4"], flush=True)
    tag = re.sub(r"\W+", "_", device.lower()).strip("_")
    (out / f"split_runs_{tag}.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "measure":
        measure(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
