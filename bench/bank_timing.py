"""The model="triton" bank-conflict figure against Triton's own helper, case by case, in one process.

    per_case = time_bank_cases([{"id", "case", "texts"}, ...], repeat=5, oracle=Oracle())

Run under the Python that has Triton (bench/in_triton.py). Per case of
tests/conformance/bank_conflicts.jsonl (its register and shared encodings, shape, element width):

1. cold, one sample each, ours then Triton's: `prove.bank_conflict_free(R, S, shape, bits, model="triton",
   engine="f2")` on encodings parsed afresh (the parse untimed) with every lowering cache cleared, then
   Triton's `GluonOpBuilder.get_shared_bank_conflicts` on attributes just built (the build untimed) and not
   lowered before: both sides lower the two layouts and count;
2. warm, `repeat` times, interleaved: the same calls again (ours: lowerings cached; Triton: its context
   keeps the lowered layouts).

Then, for comparison (`bench.lowering_timing` says why the interleaved figure is the one the target is
read against), ours cold case after case (``alone``), then Triton's cold in a fresh context case after case.
"""

from __future__ import annotations

import time

from .timing import percentile


def time_bank_cases(todo: list[dict], repeat: int, oracle) -> dict[str, dict]:
    """id -> {"cold", "triton_cold", "warm", "triton_warm", "alone_cold", "triton_alone_cold"} in seconds
    (warm: medians of `repeat` calls), or {"error": why} where a side refuses the case."""
    from checker import prove
    from checker.encodings import clear_caches
    from checker.syntax import mlir_attr
    out: dict[str, dict] = {}

    def ours(item):
        mlir_attr.clear_parse_cache()
        clear_caches()
        R, S = (mlir_attr.parse_attribute(text) for text in item["texts"])
        c = item["case"]
        t = time.perf_counter()
        prove.bank_conflict_free(R, S, c["shape"], c["element_bitwidth"], model="triton", engine="f2")
        return time.perf_counter() - t, (R, S)

    def theirs(item, tri):
        c = item["case"]
        reg, smem = (tri.build(c[key])._to_ir(tri.b) for key in ("reg_layout", "shared_layout"))
        t = time.perf_counter()
        tri.b.get_shared_bank_conflicts(reg, smem, c["shape"], c["element_bitwidth"])
        return time.perf_counter() - t, (reg, smem)

    for item in todo:
        c = item["case"]
        try:
            cold, (R, S) = ours(item)
            triton_cold, (reg, smem) = theirs(item, oracle)
        except Exception as e:  # a case either side refuses (Triton aborts on some): left out
            out[item["id"]] = {"error": f"{type(e).__name__}: {e}"}
            continue
        warm, triton_warm = [], []
        for _ in range(repeat):
            t = time.perf_counter()
            prove.bank_conflict_free(R, S, c["shape"], c["element_bitwidth"], model="triton", engine="f2")
            warm.append(time.perf_counter() - t)
            t = time.perf_counter()
            oracle.b.get_shared_bank_conflicts(reg, smem, c["shape"], c["element_bitwidth"])
            triton_warm.append(time.perf_counter() - t)
        out[item["id"]] = {"cold": cold, "triton_cold": triton_cold, "warm": percentile(warm, 50),
                           "triton_warm": percentile(triton_warm, 50)}
    kept = [item for item in todo if "error" not in out[item["id"]]]
    for item in kept:
        out[item["id"]]["alone_cold"] = ours(item)[0]
    fresh = type(oracle)()                  # a new MLIR context: nothing built or lowered in it yet
    for item in kept:
        out[item["id"]]["triton_alone_cold"] = theirs(item, fresh)[0]
    return out
