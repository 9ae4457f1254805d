"""``engine="all"`` on the conformance corpus: F2, Z3 and Bitwuzla decide every property of every case.

Each case of ``tests/conformance/*.jsonl`` gives one to five checks through the public API
(`checker.prove`), all with ``engine="all"`` (so `result.run_engines` replays every witness, checks every
certificate and raises `InternalError` when the three engines do not agree):

* a layout (lowering, differential_lowering, cga_layouts): surjective, injective and
  injective_up_to_broadcast for a distributed layout, invertible and fits for a shared one, and
  equivalent(ours, Triton's LinearLayout) where the case has Triton's;
* a conversion (convert_trivial, differential_convert_trivial): conversion(src, dst), and equivalent
  on Triton's two LinearLayouts;
* a register/shared pair (bank_conflicts, differential_bank_conflicts, h100_bank_conflicts,
  ldst_matrix_rows, padded_h100): bank_conflict_free (hardware model, store and load; Triton's model)
  and aligned_access.

A check whose input the models do not cover (`CheckerError`) is counted as skipped; anything else
that raises is a disagreement (or a bug) and is listed.

The whole corpus (docs/solvers.md)::

    python -m tests.engines_all                 # every case; --every N samples, --jobs N workers
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import checker
from checker import prove
from checker.errors import CheckerError
from checker.layout import LinearLayout

CONFORMANCE = Path(__file__).parent / "conformance"
TARGETS = {"cuda:80": "sm80", "cuda:90": "sm90", "cuda:100": "sm100", "hip:gfx942": "gfx942",
           "hip:gfx950": "gfx950"}
ENGINE = "all"


def corpus(every: int = 1) -> list[tuple[str, dict]]:
    """(file stem, case) for every `every`-th case of each file (cases Triton rejected left out)."""
    out = []
    for path in sorted(CONFORMANCE.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        rows = [r for r in rows if r.get("error") is None]
        out += [(path.stem, r) for r in rows[::every]]
    return out


def _enc(text: str):
    return checker.parse_encoding(text)


def _shape_of(mlir_type: str) -> list[int]:
    m = re.search(r"<([0-9x]+)x[a-z]", mlir_type)
    return [int(v) for v in m.group(1).split("x")]


def _layout_checks(attr: str, shape, triton_ll) -> Iterator[tuple[str, Callable]]:
    enc = _enc(attr)
    L = checker.lower(enc, shape)
    in_dims = L.linear.in_dims if hasattr(L, "linear") else L.in_dims
    if "offset" in in_dims:
        yield "invertible", lambda: prove.invertible(enc, shape, engine=ENGINE)
        yield "fits", lambda: prove.fits(enc, 16, 228 * 1024, shape=shape, engine=ENGINE)
    else:
        yield "surjective", lambda: prove.surjective(enc, shape, engine=ENGINE)
        yield "injective", lambda: prove.injective(enc, shape, engine=ENGINE)
        yield "injective_up_to_broadcast", lambda: prove.injective_up_to_broadcast(enc, shape, engine=ENGINE)
    if triton_ll is not None and not hasattr(L, "linear"):
        T = LinearLayout.from_triton_json(triton_ll)
        yield "equivalent", lambda: prove.equivalent(L, T, engine=ENGINE)


def _pair_checks(R, S, shape, bits, hw) -> Iterator[tuple[str, Callable]]:
    for direction in ("store", "load"):
        yield f"bank_conflict_free.{direction}", lambda d=direction: prove.bank_conflict_free(
            R, S, shape, bits, direction=d, hardware=hw, engine=ENGINE)
    yield "bank_conflict_free.triton", lambda: prove.bank_conflict_free(R, S, shape, bits, model="triton",
                                                                        hardware="sm90", engine=ENGINE)
    yield "aligned_access", lambda: prove.aligned_access(R, S, shape, bits, hardware=hw, engine=ENGINE)


def checks(stem: str, case: dict) -> Iterator[tuple[str, Callable]]:
    """(property, thunk) for one case (module docstring)."""
    if "mlir_attr" in case:                                   # lowering, differential_lowering
        yield from _layout_checks(case["mlir_attr"], case["shape"], case.get("linear_layout"))
    elif "blocked_example" in case:                           # cga_layouts
        ex = case["blocked_example"]
        yield from _layout_checks(ex["mlir_attr"], _shape_of(ex["mlir_type"]), None)
    elif "src_mlir_attr" in case:                             # convert_trivial
        src, dst, shape = _enc(case["src_mlir_attr"]), _enc(case["dst_mlir_attr"]), case["shape"]
        yield "conversion", lambda: prove.conversion(src, dst, shape, engine=ENGINE)
        if case.get("src_linear_layout") and case.get("dst_linear_layout"):
            A = LinearLayout.from_triton_json(case["src_linear_layout"])
            B = LinearLayout.from_triton_json(case["dst_linear_layout"])
            if sorted(A.in_dims) == sorted(B.in_dims):
                yield "equivalent", lambda: prove.equivalent(A, B, engine=ENGINE)
    elif "reg_mlir_attr" in case:                             # bank_conflicts
        hw = TARGETS.get(case.get("target"), "sm90")
        yield from _pair_checks(_enc(case["reg_mlir_attr"]), _enc(case["shared_mlir_attr"]), case["shape"],
                                case["element_bitwidth"], hw)
    elif "triton_ll" in case:                                 # ldst_matrix_rows
        R = LinearLayout.from_triton_json(case["triton_ll"]["R"])
        S = LinearLayout.from_triton_json(case["triton_ll"]["S"])
        yield from _pair_checks(R, S, None, case["bits"], TARGETS.get(case.get("target"), "sm90"))
    elif "R" in case and "S" in case:                         # h100_bank_conflicts, padded_h100
        bits = prove.dtype_bits(case["dtype"])
        yield from _pair_checks(_enc(case["R"]["triton_attr"]), _enc(case["S"]["triton_attr"]), case["shape"],
                                bits, "sm90")


def run_case(item: tuple[str, dict]) -> dict[str, Any]:
    """Counts for one case: {"agreed": n, "skipped": n, "statuses": Counter, "seconds": {engine: s},
    "bad": [(id, property, message)]}."""
    stem, case = item
    out: dict[str, Any] = {"agreed": 0, "skipped": 0, "statuses": Counter(), "seconds": Counter(), "bad": []}
    cid = case.get("id", "?")
    try:
        todo = list(checks(stem, case))
    except CheckerError:
        out["skipped"] += 1
        return out
    for prop, thunk in todo:
        try:
            r = thunk()
        except CheckerError:
            out["skipped"] += 1
            continue
        except Exception as e:  # InternalError: the engines disagree, a witness or certificate failed
            out["bad"].append((f"{stem}:{cid}", prop, f"{type(e).__name__}: {e}"))
            continue
        statuses = {v.status for v in r.verdicts.values()}
        if set(r.verdicts) != {"f2", "z3", "bitwuzla"} or len(statuses - {"unknown"}) > 1:
            out["bad"].append((f"{stem}:{cid}", prop, f"verdicts {r.verdicts}"))
            continue
        out["agreed"] += 1
        out["statuses"][r.status] += 1
        for name, s in r.seconds.items():
            out["seconds"][name] += s
    return out


def summarize(results: list[dict]) -> dict[str, Any]:
    total: dict[str, Any] = {"agreed": 0, "skipped": 0, "statuses": Counter(), "seconds": Counter(), "bad": []}
    for r in results:
        for k in ("agreed", "skipped"):
            total[k] += r[k]
        total["statuses"].update(r["statuses"])
        total["seconds"].update(r["seconds"])
        total["bad"] += r["bad"]
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.engines_all", description=__doc__.split("\n")[0])
    ap.add_argument("--every", type=int, default=1, help="every N-th case of each file (default: 1, all)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default: %(default)s)")
    args = ap.parse_args(argv)
    items = corpus(args.every)
    start = time.perf_counter()
    with Pool(args.jobs) as pool:
        results = pool.map(run_case, items, chunksize=8)
    t = summarize(results)
    wall = time.perf_counter() - start
    checked = t["agreed"] + len(t["bad"])
    print(f"{len(items)} cases, {checked} checks: {t['agreed']} agreed (f2 = z3 = bitwuzla), {len(t['bad'])} not, "
          f"{t['skipped']} skipped (input the models do not cover); verdicts {dict(t['statuses'])}")
    print("engine seconds: " + ", ".join(f"{n} {s:.1f}" for n, s in sorted(t["seconds"].items()))
          + f"; wall {wall:.1f} s with {args.jobs} worker(s)")
    for cid, prop, msg in t["bad"][:20]:
        print(f"  {cid} {prop}: {msg[:300]}")
    return 0 if not t["bad"] else 1


if __name__ == "__main__":
    sys.exit(main())
