"""Measure `conversion_cost`'s shared-memory figures for 8-bit conversions against Nsight Compute on an NVIDIA GPU.

PyTorch Inductor's dropout kernels convert their i8 masks (an ``arith.extui`` of the i1 mask) from a one-element-
per-lane blocked layout to the sixteen-elements-per-thread layout of the store (``tensor<4x256xi8>``,
``[1, 1] / [1, 32] -> [1, 16] / [2, 16]``, one warp). Triton 3.6 lowers that through 1,024 bytes of scratch with
16 ``st.shared.v2.b8`` and 16 ``ld.shared.v2.b8`` (STS.U16 / LDS.U16), and layoutcheck predicts the loads touch
two words of one bank per phase (32 wavefronts where 16 would do): Triton's swizzle counts banks per element, the
hardware's are 4-byte words. Each case here is that conversion (or a neighbour of it) in a Gluon kernel of its
own: load a tile in layout R, ``gl.convert_layout`` to R2, store it, one CTA.

    python tools/narrow_conversion_probe.py measure --out DIR   # on the GPU: ncu over `launch`, JSON + TTGIR
    python tools/narrow_conversion_probe.py launch --out DIR    # (ncu's child) compile + launch each case once
    python tools/narrow_conversion_probe.py compare [--measured F]   # layoutcheck's figures vs the measured

``measure`` runs ncu for the shared-memory wavefronts, bank conflicts and instructions of loads and stores
(``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum`` and the like) over ``launch``, which compiles each
case with the device's Triton (its TTGIR saved as ``<case>.ttgir``), checks the output equals the input, and
launches each kernel once. The stored results are in ``tools/narrow_conversion_probe/`` (``measured_h100.json``,
``ttgir/``); tests/properties/test_narrow_conversion_probe.py predicts every case from the stored TTGIR under
the Triton that compiled it and asserts the measured wavefronts.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STORED = HERE / "narrow_conversion_probe"

CASES = [  # id, dtype, shape, warps, R and R2 as (sizePerThread, threadsPerWarp, warpsPerCTA, order)
    ("i8_4x256_b1x32_to_16x2x16_w1", "int8", (4, 256), 1, ([1, 1], [1, 32], [1, 1], [1, 0]),
     ([1, 16], [2, 16], [1, 1], [1, 0])),                       # Inductor's dropout-mask conversion
    ("i8_4x256_b1x32_to_8x1x32_w1", "int8", (4, 256), 1, ([1, 1], [1, 32], [1, 1], [1, 0]),
     ([1, 8], [1, 32], [1, 1], [1, 0])),
    ("i8_8x256_b1x32_to_16x2x16_w2", "int8", (8, 256), 2, ([1, 1], [1, 32], [2, 1], [1, 0]),
     ([1, 16], [2, 16], [2, 1], [1, 0])),
    ("bf16_4x256_b16x2x16_to_8x1x32_w1", "bfloat16", (4, 256), 1, ([1, 16], [2, 16], [1, 1], [1, 0]),
     ([1, 8], [1, 32], [1, 1], [1, 0])),                        # Inductor's bf16 output conversion: shuffles
]
METRICS = {"ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
           "ld_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
           "st_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
           "ld_instructions": "smsp__inst_executed_op_shared_ld.sum",
           "st_instructions": "smsp__inst_executed_op_shared_st.sum"}


def launch(out: Path) -> None:
    import torch
    import triton
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def narrow_conversion_probe(x, y, M: gl.constexpr, N: gl.constexpr, R: gl.constexpr, R2: gl.constexpr):
        rows = gl.arange(0, M, layout=gl.SliceLayout(1, R))
        cols = gl.arange(0, N, layout=gl.SliceLayout(0, R))
        v = gl.load(x + rows[:, None] * N + cols[None, :])
        w = gl.convert_layout(v, R2)
        rows2 = gl.arange(0, M, layout=gl.SliceLayout(1, R2))
        cols2 = gl.arange(0, N, layout=gl.SliceLayout(0, R2))
        gl.store(y + rows2[:, None] * N + cols2[None, :], w)

    out.mkdir(parents=True, exist_ok=True)
    res: dict = {"triton": triton.__version__, "cases": []}
    for cid, dt, (m, n), warps, r, r2 in CASES:
        x = (torch.arange(m * n, device="cuda") % 127).to(getattr(torch, dt))
        y = torch.zeros_like(x)
        k = narrow_conversion_probe[(1,)](x, y, m, n, gl.BlockedLayout(*r), gl.BlockedLayout(*r2), num_warps=warps)
        torch.cuda.synchronize()
        (out / f"{cid}.ttgir").write_text(k.asm["ttgir"])
        res["cases"].append({"id": cid, "ok": bool(torch.equal(x, y)), "shared": k.metadata.shared,
                             "ptx_shared": re.findall(r"(?:ld|st)\.shared[.\w]*", k.asm["ptx"])})
    (out / "launch.json").write_text(json.dumps(res, indent=1))


def measure(out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    ncu = shutil.which("ncu") or str(sorted(Path("/opt/nvidia/nsight-compute").glob("*/ncu"))[-1])
    p = subprocess.run([ncu, "--target-processes", "all", "--kernel-name", "regex:narrow_conversion_probe",
                        "--metrics", ",".join(METRICS.values()), "--csv", "--page", "raw", sys.executable,
                        str(Path(__file__).resolve()), "launch", "--out", str(out)], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"ncu failed ({p.returncode}): {p.stderr[-2000:]}")
    rows = [r for r in csv.DictReader(io.StringIO("\n".join(ln for ln in p.stdout.splitlines() if ln.startswith('"'))))
            if r.get("Kernel Name")]
    counted = []
    for r in rows:
        try:
            counted.append({k: int(float(r[m].replace(",", ""))) for k, m in METRICS.items()})
        except ValueError:          # the units row
            continue
    launched = json.loads((out / "launch.json").read_text())
    if len(counted) != len(launched["cases"]):
        raise SystemExit(f"{len(counted)} profiled launches for {len(launched['cases'])} cases")
    import torch
    res = {"device": torch.cuda.get_device_name(0), "triton": launched["triton"], "metrics": METRICS,
           "cases": {c["id"]: {**c, "measured": m} for c, m in zip(launched["cases"], counted)}}
    (out / "measured.json").write_text(json.dumps(res, indent=1))
    print(json.dumps({cid: c["measured"] for cid, c in res["cases"].items()}))
    return res


def predict(ttgir: Path, triton_version: str) -> dict:
    """layoutcheck's conversion_cost of the case's one convert_layout: its store and load wavefronts (0 without
    shared memory) and its scratch bytes."""
    sys.path.insert(0, str(HERE.parent))
    import checker
    report = checker.verify(str(ttgir), triton_version=triton_version)
    (cost,) = [c for c in report["checks"] if c["property"] == "conversion_cost"]
    d = cost["details"]
    return {"scratch_bytes": d.get("scratch_bytes", 0), "st_wavefronts": (d.get("store") or {}).get("wavefronts", 0),
            "ld_wavefronts": (d.get("load") or {}).get("wavefronts", 0), "verdict": cost["verdict"]}


def compare(measured: Path) -> list[tuple]:
    res = json.loads(measured.read_text())
    version = ".".join(res["triton"].split(".")[:2])
    rows = []
    for cid, c in res["cases"].items():
        got = predict(measured.parent / "ttgir" / f"{cid}.ttgir", version)
        m = c["measured"]
        rows.append((cid, got["st_wavefronts"], m["st_wavefronts"], got["ld_wavefronts"], m["ld_wavefronts"],
                     got["scratch_bytes"], c["shared"]))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("launch", "measure", "compare"))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--measured", type=Path, default=STORED / "measured_h100.json")
    args = ap.parse_args(argv)
    if args.command == "launch":
        launch(args.out)
    elif args.command == "measure":
        measure(args.out)
    else:
        print("case  store (predicted, measured)  load (predicted, measured)  scratch (predicted, Triton)")
        for row in compare(args.measured):
            print(*row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
