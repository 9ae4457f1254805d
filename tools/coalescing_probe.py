"""Measure the `coalesced` property against Nsight Compute on an NVIDIA GPU (issue 30).

A probe set of Gluon kernels, each loading one tile of a 2-D tensor through a pinned ``BlockedLayout`` and
storing it back to a second tensor at the same offsets (one CTA, grid (1,)). The cases vary the layout
(``sizePerThread`` along and across the contiguous dim, lanes along or across it, replicated warps and
registers), the memory order (row- or column-major), the element type (fp32 / fp16 / int8) and what the IR
knows of the stride (a runtime argument specialised as divisible by 16, one with ``do_not_specialize``,
the same with ``gl.multiple_of``, a constexpr). Every tensor's stride between rows (row-major) or columns
(column-major) is STRIDE = 256 elements, so rows are far apart and 32-byte aligned, which is what the model
assumes of an unknown stride (``UNKNOWN_STRIDE_BYTES``): an exact comparison with the measurement.

    python tools/coalescing_probe.py cases                     # the probe set
    python tools/coalescing_probe.py predict [--ttgir DIR]     # layoutcheck's figures per access (stored TTGIR,
                                                               #   or compiled here with the installed Triton)
    python tools/coalescing_probe.py measure --out DIR         # on the GPU: ncu over `launch`, JSON + TTGIR
    python tools/coalescing_probe.py launch --out DIR          # (ncu's child) compile + launch each case once
    python tools/coalescing_probe.py compare [--measured F]    # predicted vs measured, per case

``measure`` runs ``ncu --metrics l1tex__t_{sectors,requests}_pipe_lsu_mem_global_op_{ld,st}.sum --csv`` over
``launch``, which compiles each case with the device's Triton (its TTGIR saved as ``<case>.ttgir``), checks that
the output equals the input on the tile, and launches each kernel exactly once. The stored results are in
``tools/coalescing_probe/`` (``measured_h100.json``, ``ttgir/``); ``tests/verify/test_coalescing_probe.py``
re-predicts every case from the stored TTGIR (``checker.verify(..., triton_version=...)``) and asserts the
predicted requests and sectors equal the measured ones.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
STORE = HERE / "coalescing_probe"
STRIDE = 256            # elements between rows (row-major) / columns (column-major) of every probe tensor
METRICS = ["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
DTYPES = {"fp32": ("fp32", 32, "float32"), "fp16": ("fp16", 16, "float16"), "int8": ("i8", 8, "int8")}
MODES = {"spec": 0, "constexpr": 1, "multiple_of": 2, "nodiv": 3}


def _case(cid, dtype, shape, spt, tpw, wpc, order, major="row", mode="spec", note=""):
    return {"id": cid, "dtype": dtype, "shape": list(shape), "size_per_thread": list(spt),
            "threads_per_warp": list(tpw), "warps_per_cta": list(wpc), "order": list(order), "major": major,
            "stride_mode": mode, "num_warps": wpc[0] * wpc[1], "note": note}


# (id, dtype, tile, sizePerThread, threadsPerWarp, warpsPerCTA, order, memory order, stride mode, what it shows)
CASES = [
    _case("f32_row_v4", "fp32", (32, 64), (1, 4), (2, 16), (4, 1), (1, 0), note="16-byte vectors along the row"),
    _case("f32_row_v2", "fp32", (32, 64), (1, 2), (1, 32), (4, 1), (1, 0), note="8-byte vectors"),
    _case("f32_row_v1", "fp32", (32, 64), (1, 1), (1, 32), (4, 1), (1, 0), note="scalar, coalesced"),
    _case("f32_row_spt8", "fp32", (32, 64), (1, 8), (4, 8), (4, 1), (1, 0),
          note="8 per thread: two 16-byte vectors, lanes 32 bytes apart (half of every sector)"),
    _case("f32_row_lanes_down", "fp32", (32, 64), (1, 4), (32, 1), (1, 4), (1, 0),
          note="lanes down the column: one row per lane"),
    _case("f32_row_order_across", "fp32", (32, 64), (4, 1), (8, 4), (1, 4), (0, 1),
          note="order across the contiguous dim: scalar, one sector per lane"),
    _case("f32_row_nodiv", "fp32", (32, 64), (1, 4), (2, 16), (4, 1), (1, 0), mode="nodiv",
          note="runtime stride, no divisibility: scalar"),
    _case("f32_row_multiple_of", "fp32", (32, 64), (1, 4), (2, 16), (4, 1), (1, 0), mode="multiple_of",
          note="runtime stride, no specialisation, gl.multiple_of(row offsets, 16)"),
    _case("f32_row_constexpr", "fp32", (32, 64), (1, 4), (2, 16), (4, 1), (1, 0), mode="constexpr",
          note="constexpr stride"),
    _case("f32_col_good", "fp32", (64, 32), (4, 1), (16, 2), (1, 4), (0, 1), major="col",
          note="column-major memory, layout along the columns"),
    _case("f32_col_bad", "fp32", (64, 32), (1, 4), (2, 16), (4, 1), (1, 0), major="col",
          note="column-major memory, row-major layout"),
    _case("f32_col_nodiv", "fp32", (64, 32), (4, 1), (16, 2), (1, 4), (0, 1), major="col", mode="nodiv",
          note="column-major, runtime stride without divisibility"),
    _case("f32_col_multiple_of", "fp32", (64, 32), (4, 1), (16, 2), (1, 4), (0, 1), major="col",
          mode="multiple_of", note="column-major, gl.multiple_of(column offsets, 16)"),
    _case("f32_col_constexpr", "fp32", (64, 32), (4, 1), (16, 2), (1, 4), (0, 1), major="col", mode="constexpr",
          note="column-major, constexpr stride"),
    _case("f16_row_v8", "fp16", (32, 64), (1, 8), (4, 8), (4, 1), (1, 0), note="16-byte vectors"),
    _case("f16_row_v4", "fp16", (32, 64), (1, 4), (2, 16), (4, 1), (1, 0), note="8-byte vectors"),
    _case("f16_row_v1", "fp16", (32, 64), (1, 1), (1, 32), (4, 1), (1, 0), note="scalar"),
    _case("f16_row_order_across", "fp16", (32, 64), (8, 1), (4, 8), (1, 4), (0, 1),
          note="order across the contiguous dim"),
    _case("f16_row_nodiv", "fp16", (32, 64), (1, 8), (4, 8), (4, 1), (1, 0), mode="nodiv",
          note="runtime stride without divisibility"),
    _case("f16_row_multiple_of", "fp16", (32, 64), (1, 8), (4, 8), (4, 1), (1, 0), mode="multiple_of",
          note="gl.multiple_of(row offsets, 16)"),
    _case("f16_narrow_tile", "fp16", (64, 8), (1, 8), (32, 1), (2, 1), (1, 0),
          note="16 bytes per row: a row per lane, each half a sector"),
    _case("i8_row_v16", "int8", (32, 128), (1, 16), (4, 8), (4, 1), (1, 0), note="16-byte vectors"),
    _case("i8_row_v4", "int8", (32, 128), (1, 4), (1, 32), (4, 1), (1, 0), note="4-byte vectors"),
    _case("i8_row_v1", "int8", (32, 128), (1, 1), (1, 32), (4, 1), (1, 0), note="scalar bytes"),
    _case("i8_row_nodiv", "int8", (32, 128), (1, 16), (4, 8), (4, 1), (1, 0), mode="nodiv",
          note="runtime stride without divisibility"),
    _case("i8_col_bad", "int8", (32, 128), (1, 16), (4, 8), (4, 1), (1, 0), major="col",
          note="column-major memory, row-major layout"),
    _case("f32_warp_broadcast", "fp32", (8, 64), (1, 4), (2, 16), (8, 1), (1, 0),
          note="8 warps over 8 rows of a 16-row layout: the store skips the repeated warps"),
    _case("f32_reg_broadcast", "fp32", (4, 64), (8, 2), (1, 32), (4, 1), (1, 0),
          note="registers and warps beyond the tile: repeated registers skipped, stores by warp 0 only"),
]


def strides_of(c) -> list[int | None]:
    """Element strides per dim, as the kernel sees them."""
    return [STRIDE, 1] if c["major"] == "row" else [1, STRIDE]


# ------------------------------------------------------------------------------ the kernels (Triton with Gluon)

try:                                        # Triton with Gluon: only `compile`, `launch` and `measure` need it
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
except ImportError:                         # pragma: no cover - predict / compare / the test need no Triton
    gluon = gl = None

if gluon is not None:
    @gluon.jit
    def _tile(inp, out, s, BM: gl.constexpr, BN: gl.constexpr, LAYOUT: gl.constexpr, COL: gl.constexpr,
              HINT: gl.constexpr):
        rows = gl.arange(0, BM, layout=gl.SliceLayout(1, LAYOUT))
        cols = gl.arange(0, BN, layout=gl.SliceLayout(0, LAYOUT))
        if COL:
            strided = cols[None, :] * s
            if HINT:        # gl.multiple_of on the scalar argument is dropped (a block argument has no op)
                strided = gl.multiple_of(strided, [16, 16])
            offs = rows[:, None] + strided
        else:
            strided = rows[:, None] * s
            if HINT:
                strided = gl.multiple_of(strided, [16, 16])
            offs = strided + cols[None, :]
        x = gl.load(inp + offs)
        gl.store(out + offs, x)

    @gluon.jit
    def coalescing_probe(inp, out, stride, SC: gl.constexpr, BM: gl.constexpr, BN: gl.constexpr,
                         LAYOUT: gl.constexpr, COL: gl.constexpr, MODE: gl.constexpr):
        if MODE == 1:
            _tile(inp, out, SC, BM, BN, LAYOUT, COL, False)
        else:
            _tile(inp, out, stride, BM, BN, LAYOUT, COL, False)

    @gluon.jit(do_not_specialize=["stride"])
    def coalescing_probe_nds(inp, out, stride, SC: gl.constexpr, BM: gl.constexpr, BN: gl.constexpr,
                             LAYOUT: gl.constexpr, COL: gl.constexpr, MODE: gl.constexpr):
        _tile(inp, out, stride, BM, BN, LAYOUT, COL, MODE == 2)


def kernels():
    if gluon is None:
        raise SystemExit("needs Triton with Gluon")
    return coalescing_probe, coalescing_probe_nds, gl


def _layout(gl, c):
    return gl.BlockedLayout(size_per_thread=c["size_per_thread"], threads_per_warp=c["threads_per_warp"],
                            warps_per_cta=c["warps_per_cta"], order=c["order"])


def _kernel_and_args(c, k_spec, k_nds, gl):
    kern = k_nds if c["stride_mode"] in ("nodiv", "multiple_of") else k_spec
    const = {"SC": STRIDE, "BM": c["shape"][0], "BN": c["shape"][1], "LAYOUT": _layout(gl, c),
             "COL": c["major"] == "col", "MODE": MODES[c["stride_mode"]]}
    return kern, const


def compile_here(c) -> str:
    """The case's TTGIR as the installed Triton compiles it for cuda:90 on a CPU (the launch's
    specialisation: 16-byte-divisible pointers, the stride divisible by 16 unless do_not_specialize)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    k_spec, k_nds, gl = kernels()
    kern, const = _kernel_and_args(c, k_spec, k_nds, gl)
    ptr = "*" + DTYPES[c["dtype"]][0]
    sig = {"inp": ptr, "out": ptr, "stride": "i32", **{k: "constexpr" for k in const}}
    attrs = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}
    if kern is k_spec:
        attrs[(2,)] = [["tt.divisibility", 16]]
    src = GluonASTSource(kern, sig, constexprs=const, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": c["num_warps"]})
    return k.asm["ttgir"]


def _header(c, version: str, where: str) -> str:
    return f"// {c['id']}: compiled by Triton {version} ({where}; tools/coalescing_probe.py)\n"


def launch(out_dir: Path) -> None:
    """Compile and launch every case once (grid (1,)); save each TTGIR; check out == inp on the tile."""
    import torch
    import triton
    k_spec, k_nds, gl = kernels()
    out_dir.mkdir(parents=True, exist_ok=True)
    report = []
    for c in CASES:
        tdt = getattr(torch, DTYPES[c["dtype"]][2])
        n = STRIDE * max(c["shape"])
        if tdt.is_floating_point:
            inp = torch.randn(n, device="cuda").to(tdt)
        else:
            inp = torch.randint(-100, 100, (n,), device="cuda", dtype=tdt)
        out = torch.zeros_like(inp)
        kern, const = _kernel_and_args(c, k_spec, k_nds, gl)
        torch.cuda.synchronize()
        ck = kern[(1,)](inp, out, STRIDE, **const, num_warps=c["num_warps"])
        torch.cuda.synchronize()
        (out_dir / f"{c['id']}.ttgir").write_text(_header(c, triton.__version__, "device")
                                                    + ck.asm["ttgir"].replace(str(ROOT) + os.sep, ""))
        BM, BN = c["shape"]
        r = torch.arange(BM, device="cuda")[:, None]
        q = torch.arange(BN, device="cuda")[None, :]
        offs = (r * STRIDE + q) if c["major"] == "row" else (r + q * STRIDE)
        ok = bool(torch.equal(out[offs], inp[offs])) and int((out != 0).sum()) <= BM * BN
        ptx = re.findall(r"\b(?:ld|st)\.global[\w.]*", ck.asm["ptx"])
        report.append({"id": c["id"], "ok": ok, "ptx_global": ptx, "sass_global": _sass_global(ck.asm["cubin"])})
        print(c["id"], "ok" if ok else "WRONG OUTPUT", flush=True)
    (out_dir / "launch.json").write_text(json.dumps({"triton": triton.__version__, "cases": report}, indent=1))


def _sass_global(cubin: bytes) -> list[str]:
    """The LDG / STG instructions of a cubin (with their predicates and EXITs), by the cuobjdump Triton ships."""
    import tempfile

    import triton
    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        try:
            text = subprocess.run([str(tool), "-sass", f.name], capture_output=True, text=True).stdout
        except OSError as e:
            return [f"cuobjdump failed: {e}"]
    ins = re.finditer(r"/\*[0-9a-f]{4}\*/\s+([^;]*(?:LDG|STG|EXIT)[^;]*);", text)
    return [" ".join(m.group(1).split()) for m in ins]


def _ncu() -> str:
    import shutil
    for p in [shutil.which("ncu"), *sorted(Path("/opt/nvidia/nsight-compute").glob("*/ncu")),
              *sorted(Path("/usr/local/cuda/bin").glob("ncu"))]:
        if p:
            return str(p)
    raise SystemExit("ncu not found")


def parse_ncu_csv(text: str) -> list[dict]:
    """ncu --csv --page raw: one row per kernel launch (header, units row, then data)."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    out = []
    for row in rows:
        if not row.get("Kernel Name") or not any(m in row for m in METRICS):
            continue
        try:
            vals = {m: int(float(row[m].replace(",", ""))) for m in METRICS}
        except ValueError:        # the units row
            continue
        out.append({"kernel": row["Kernel Name"], "id": int(row["ID"]), **vals})
    return sorted(out, key=lambda r: r["id"])


def measure(out_dir: Path) -> dict:
    out_dir.mkdir(parents=True, exist_ok=True)
    ncu = _ncu()
    ver = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    cmd = [ncu, "--target-processes", "all", "--clock-control", "none", "--kernel-name", "regex:coalescing_probe",
           "--metrics", ",".join(METRICS), "--csv", "--page", "raw",
           sys.executable, str(Path(__file__).resolve()), "launch", "--out", str(out_dir)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    (out_dir / "ncu.csv").write_text(p.stdout)
    if p.returncode:
        print(p.stdout[-4000:], p.stderr[-4000:])
        raise SystemExit(f"ncu failed ({p.returncode})")
    rows = parse_ncu_csv(p.stdout)
    launched = json.loads((out_dir / "launch.json").read_text())
    if len(rows) != len(CASES):
        raise SystemExit(f"{len(rows)} profiled launches for {len(CASES)} cases")
    import torch
    res = {"device": torch.cuda.get_device_name(0), "capability": list(torch.cuda.get_device_capability(0)),
           "triton": launched["triton"], "torch": torch.__version__, "ncu": ver, "stride_elements": STRIDE,
           "grid": [1, 1, 1], "metrics": METRICS, "cases": {}}
    for c, r, lr in zip(CASES, rows, launched["cases"]):
        assert lr["id"] == c["id"]
        res["cases"][c["id"]] = {"kernel": r["kernel"], "ncu_id": r["id"], "output_ok": lr["ok"],
                                 "ptx": lr["ptx_global"], "sass": lr["sass_global"],
                                 "ld": {"requests": r[METRICS[0]], "sectors": r[METRICS[1]]},
                                 "st": {"requests": r[METRICS[2]], "sectors": r[METRICS[3]]}}
    (out_dir / "measured.json").write_text(json.dumps(res, indent=1))
    return res


# ------------------------------------------------------------------------------ prediction (layoutcheck)

def predict_text(ttgir: str, triton_version: str | None) -> dict:
    """{'ld': {...}, 'st': {...}} of the module's one load and one store: layoutcheck's coalesced details."""
    sys.path.insert(0, str(ROOT))
    import checker
    rep = checker.verify(ttgir, triton_version=triton_version, only=["*coalesced*"], formats=(), engine="both")
    out = {}
    for ch in rep["checks"]:
        if ch.get("property") != "coalesced":
            continue
        d = ch.get("details") or {}
        key = "ld" if d.get("access") == "load" else "st"
        if key in out:
            raise ValueError(f"two {key} accesses in one probe module")
        req, sec = d.get("requests"), d.get("sectors")
        out[key] = {"instruction": d.get("instruction"), "vector_bytes": d.get("vector_bytes"), "vec": d.get("vec"),
                    "layout_vec": d.get("layout_vec"), "requests": req, "sectors": sec,
                    "min_sectors": d.get("min_sectors"), "verdict": ch.get("verdict"),
                    "sectors_per_request": round(sec / req, 3) if req else None}
    return out


def stored_ttgir(d: Path) -> dict[str, tuple[str, str]]:
    """{case: (text, triton version from the header)} of a folder of <case>.ttgir."""
    out = {}
    for c in CASES:
        f = d / f"{c['id']}.ttgir"
        if f.exists():
            text = f.read_text()
            first = text.splitlines()[0]
            ver = first.split("Triton ")[1].split()[0] if "Triton " in first else None
            out[c["id"]] = (text, ver)
    return out


def predict_all(ttgir_dir: Path | None) -> dict:
    res = {}
    stored = stored_ttgir(ttgir_dir) if ttgir_dir else {}
    for c in CASES:
        if c["id"] in stored:
            text, ver = stored[c["id"]]
        else:
            import triton
            text, ver = compile_here(c), triton.__version__
        mm = ".".join(ver.split(".")[:2]) if ver else None
        res[c["id"]] = predict_text(text, mm)
    return res


def compare(pred: dict, meas: dict) -> list[dict]:
    rows = []
    for c in CASES:
        m = meas["cases"][c["id"]]
        p = pred[c["id"]]
        for k in ("ld", "st"):
            row = {"id": c["id"], "access": k, "instruction": p[k]["instruction"],
                   "pred_requests": p[k]["requests"], "pred_sectors": p[k]["sectors"],
                   "min_sectors": p[k]["min_sectors"], "meas_requests": m[k]["requests"],
                   "meas_sectors": m[k]["sectors"]}
            row["agree"] = (row["pred_requests"], row["pred_sectors"]) == (row["meas_requests"], row["meas_sectors"])
            rows.append(row)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("cases")
    p = sub.add_parser("predict")
    p.add_argument("--ttgir", type=Path, default=STORE / "ttgir", help="folder of <case>.ttgir ('' : compile here)")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("compile", help="write each case's TTGIR as the installed Triton compiles it on a CPU")
    p.add_argument("--out", type=Path, required=True)
    for name in ("measure", "launch"):
        p = sub.add_parser(name)
        p.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "coalescing_out")))
    p = sub.add_parser("compare")
    p.add_argument("--ttgir", type=Path, default=STORE / "ttgir")
    p.add_argument("--measured", type=Path, default=STORE / "measured_h100.json")
    a = ap.parse_args(argv)
    if a.cmd == "cases":
        for c in CASES:
            print(f"{c['id']:22} {c['dtype']:5} {str(c['shape']):10} spt={c['size_per_thread']} "
                  f"tpw={c['threads_per_warp']} wpc={c['warps_per_cta']} order={c['order']} {c['major']}-major "
                  f"stride={c['stride_mode']}  {c['note']}")
    elif a.cmd == "predict":
        pred = predict_all(a.ttgir if str(a.ttgir) else None)
        if a.json:
            print(json.dumps(pred, indent=1))
        else:
            for cid, acc in pred.items():
                for k, v in acc.items():
                    print(f"{cid:22} {k} {v['instruction']:22} {v['vector_bytes']:3}B req={v['requests']:4} "
                          f"sect={v['sectors']:5} min={v['min_sectors']:5} sect/req={v['sectors_per_request']} "
                          f"{v['verdict']}")
    elif a.cmd == "compile":
        import triton
        a.out.mkdir(parents=True, exist_ok=True)
        for c in CASES:
            (a.out / f"{c['id']}.ttgir").write_text(_header(c, triton.__version__, "CPU")
                                                   + compile_here(c).replace(str(ROOT) + os.sep, ""))
            print(c["id"], flush=True)
    elif a.cmd == "launch":
        launch(a.out)
    elif a.cmd == "measure":
        res = measure(a.out)
        for cid, m in res["cases"].items():
            print(cid, m["ld"], m["st"], sorted(set(m["ptx"])), len(m["sass"]),
                  "" if m["output_ok"] else "WRONG OUTPUT")
    elif a.cmd == "compare":
        meas = json.loads(a.measured.read_text())
        rows = compare(predict_all(a.ttgir), meas)
        for r in rows:
            print(f"{r['id']:22} {r['access']} {r['instruction']:22} pred {r['pred_requests']:4}/{r['pred_sectors']:5}"
                  f"  meas {r['meas_requests']:4}/{r['meas_sectors']:5}  {'ok' if r['agree'] else 'DIFFER'}")
        print(f"{sum(r['agree'] for r in rows)}/{len(rows)} accesses agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
