"""Check that a handful of rules explain, case by case, how Triton 3.5-3.8 lower differently from
layoutcheck's (Triton 3.9) lowering.

    .venv/bin/python tools/version_rules.py tests/versions/lowering

Reads tests/versions/lowering/<X.Y>.jsonl (tools/version_oracle.py's answers, keyed by `attr39`), lowers
each `attr39` with layoutcheck, applies the rules of version X.Y to layoutcheck's result (or predicts
X.Y's error), and counts, per version and rule, the cases each rule explains; anything no rule explains is
printed. A scratch model of the version differences, not part of layoutcheck.
"""
from __future__ import annotations

import collections
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import checker  # noqa: E402
from checker.encodings import lower as _lower  # noqa: E402
from checker.padded import linear_part  # noqa: E402

_cache: dict = {}


def ours(attr: str, shape) -> dict:
    key = (attr, tuple(shape))
    if key not in _cache:
        try:
            L = linear_part(_lower(checker.parse_encoding(attr), list(shape)))
            out = {d: [list(b) for b in L.in_bases(d)] for d in L.in_dims}
            out["shape"] = [s for _, s in L.out_dim_sizes]
        except Exception as e:
            out = {"error": f"{type(e).__name__}: {e}"}
        _cache[key] = out
    return _cache[key]


def family(attr: str) -> str:
    return re.match(r"#\w+\.(\w+)", attr).group(1)


def vt(v: str) -> tuple:
    return tuple(int(x) for x in v.split(".")[:2])


def ints(text: str, key: str) -> list[int] | None:
    m = re.search(key + r" = \[([^\]]*)\]", text)
    return [int(x) for x in m.group(1).split(",")] if m else None


# ---------------------------------------------------------------- LL rules (transform our result)

def blocked_keep_cut_registers(case, ll):
    """blocked (<=3.8): register bases of sizePerThread that a small shape cuts stay as zero bases;
    3.9 drops them (Triton PR #11541)."""
    a = case["attr39"]
    spt, order, shape = ints(a, "sizePerThread"), ints(a, "order"), list(case["shape"])
    for b in ll.get("block", []):             # the cut is against the shape per CTA
        for d, x in enumerate(b):
            if x:
                shape[d] //= 2
    tile = []
    for d in order:
        for i in range(int(math.log2(spt[d]))):
            b = [0] * len(shape)
            if (1 << i) < shape[d]:
                b[d] = 1 << i
            tile.append(b)
    kept = [b for b in tile if any(b)]
    if ll["register"][:len(kept)] != kept:
        return None
    out = dict(ll)
    out["register"] = tile + ll["register"][len(kept):]
    return out


def nvmma_swizzle0_ignores_transposed(case, ll):
    """nvmma_shared (<=3.7): swizzlingByteWidth = 0 lowers `transposed = true` as `transposed = false`."""
    return ours(case["attr39"].replace("transposed = true", "transposed = false"), case["shape"])


def tmem_no_block_dim(case, ll):
    """tensor_memory(_scales)_encoding (<=3.7): no `block` input dim; CTA-split bases are appended to `col`."""
    return {"row": ll["row"], "col": ll["col"] + ll.get("block", []), "shape": ll["shape"]}


def tmem_scales_drop_zero_rows(case, ll):
    """tensor_memory_scales_encoding (3.5): zero (broadcast) `row` bases are dropped, no `block` dim."""
    return {"row": [b for b in ll["row"] if any(b)], "col": ll["col"] + ll.get("block", []),
            "shape": ll["shape"]}


def mfma_dot_tiles_per_warp_reversed(case, ll):
    """dot_op of amd_mfma (3.5): the parent's tilesPerWarp is read reversed (operand A tiles M by
    tilesPerWarp[1], operand B tiles N by tilesPerWarp[0]); tile register bases cut by the shape stay as
    zero bases (compared modulo zero register bases)."""
    a = case["attr39"]
    tpw = ints(a, "tilesPerWarp")
    out = ours(a.replace(f"tilesPerWarp = {tpw}", f"tilesPerWarp = {tpw[::-1]}"), case["shape"])
    return out


def _strip_zero_regs(ll):
    return {**ll, "register": [b for b in ll["register"] if any(b)]} if "register" in ll else ll


def wmma_dot_k_bases_first(case, ll):
    """dot_op of amd_wmma (<=3.7): register bases along K all come before the non-K ones (3.9 puts
    the parent's ctaLayout register tiles before the K repeats)."""
    op = int(re.search(r"opIdx = (\d)", case["attr39"]).group(1))
    rank = len(case["shape"])
    k = rank - 1 if op == 0 else rank - 2
    regs = ll["register"]
    alongk = [b for b in regs if any(b) and all(x == 0 for i, x in enumerate(b) if i != k)]
    other = [b for b in regs if b not in alongk]
    out = dict(ll)
    out["register"] = alongk + other
    return out


def ll_rules(case, v):
    a, f = case["attr39"], family(case["attr39"])
    rules = []
    if f == "blocked" and vt(v) <= (3, 8):
        rules.append(blocked_keep_cut_registers)
    if f == "nvmma_shared" and vt(v) <= (3, 7) and "swizzlingByteWidth = 0," in a and "transposed = true" in a:
        rules.append(nvmma_swizzle0_ignores_transposed)
    if f == "tensor_memory_scales_encoding" and vt(v) <= (3, 5):
        rules.append(tmem_scales_drop_zero_rows)
    elif f.startswith("tensor_memory") and vt(v) <= (3, 7):
        rules.append(tmem_no_block_dim)
    if f == "dot_op" and "amd_mfma" in a and "tilesPerWarp" in a and vt(v) <= (3, 5):
        rules.append(mfma_dot_tiles_per_warp_reversed)
    if f == "dot_op" and "amd_wmma" in a and "register = " in a and vt(v) <= (3, 7):
        rules.append(wmma_dot_k_bases_first)
    return rules


# ---------------------------------------------------------------- error rules (predict the version's error)

def wmma_view_shape(attr: str, shape: list[int]) -> list[int] | None:
    """The shape an amd_wmma encoding sees through slices (a 1 inserted per slice) and dot operands."""
    shape = list(shape)
    while True:
        m = re.match(r"#ttg\.slice<\{dim = (\d+), parent = (.*)\}>$", attr)
        if m:
            shape.insert(int(m.group(1)), 1)
            attr = m.group(2)
            continue
        m = re.match(r"#ttg\.dot_op<\{opIdx = \d, parent = (.*), kWidth = \d+\}>$", attr)
        if m:
            attr = m.group(1)
            continue
        return shape if attr.startswith("#ttg.amd_wmma") else None


def error_rule(case, v, err):
    a, f = case["attr39"], family(case["attr39"])
    if err.startswith("inexpressible"):
        return "spelling: no spelling in this version (" + err.split(": ", 1)[1] + ")"
    if err.startswith("parse"):
        if f == "generic_linear" and vt(v) <= (3, 7) and "unknown attribute `generic_linear`" in err:
            return "parse: #ttg.generic_linear is unknown before 3.8"
        if f == "partitioned_shared" and vt(v) <= (3, 7) and "unknown attribute `partitioned_shared`" in err:
            return "parse: #ttg.partitioned_shared is unknown before 3.8"
        if "#ttg.shared_linear" in a and vt(v) <= (3, 5) and "unknown attribute `shared_linear`" in err:
            return "parse: #ttg.shared_linear is unknown in 3.5"
        if "amd_wmma<{version = 3" in a and vt(v) <= (3, 5) and "WMMA version must be in the [1, 2] range" in err:
            return "verify: WMMA version 3 rejected in 3.5"
        if (f == "dot_op" and "amd_wmma<{version = 3" in a and vt(v) == (3, 6)
                and int(re.search(r"kWidth = (\d+)", a).group(1)) not in (2, 8, 16)
                and "kWidth parameter must be 2/8/16 for WMMA v3" in err):
            return "verify: dot_op kWidth must be 2/8/16 for a WMMA v3 parent in 3.6"
        return None
    if err.startswith("crash"):
        s = wmma_view_shape(a, case["shape"])
        if (s is not None and vt(v) <= (3, 7) and "Unsupported tensor shape for given wmma layout" in err
                and any(x != 1 and x < 16 for x in s[-2:])):
            return "abort: amd_wmma at a shape with M or N neither 1 nor >= 16 aborts in <=3.7"
    return None


# ---------------------------------------------------------------- driver

def main(folder: str) -> None:
    base = {}
    for line in open(os.path.join(folder, "3.9.jsonl")):
        r = json.loads(line)
        base[(r["attr39"], tuple(r["shape"]))] = r
    for v in ("3.9", "3.8", "3.7", "3.6", "3.5"):
        counts, unexplained = collections.Counter(), []
        for line in open(os.path.join(folder, f"{v}.jsonl")):
            r = json.loads(line)
            o = ours(r["attr39"], r["shape"])
            b = base[(r["attr39"], tuple(r["shape"]))]
            if "ll" in r:
                if "error" in o:
                    key = "baseline: layoutcheck rejects what Triton lowers" + (
                        " (3.9 too)" if "ll" in b else " (3.9 aborts)")
                    counts[key] += 1
                    continue
                if r["ll"] == o:
                    counts["same as layoutcheck"] += 1
                    continue
                pred, used = o, []
                for rule in ll_rules(r, v):
                    nxt = rule(r, pred)
                    if nxt is not None:
                        pred, used = nxt, used + [rule.__name__]
                if pred == r["ll"] and used:
                    counts["rule: " + "+".join(used)] += 1
                elif used and "error" not in pred and _strip_zero_regs(pred) == _strip_zero_regs(r["ll"]):
                    counts["rule (modulo zero register bases): " + "+".join(used)] += 1
                elif "error" in b and vt(v) < (3, 9):
                    counts[f"3.9 aborts, {v} lowers ({family(r['attr39'])})" + (
                        ": equal to layoutcheck" if r["ll"] == o else "")] += 1
                else:
                    key = "baseline: layoutcheck differs from 3.9 too" if b.get("ll") == r["ll"] else "UNEXPLAINED"
                    counts[key] += 1
                    if key == "UNEXPLAINED":
                        unexplained.append((r, o))
            else:
                err = r["error"]
                rule = error_rule(r, v, err)
                if rule:
                    counts[rule] += 1
                elif "error" in b and b["error"].split(":")[0] == err.split(":")[0]:
                    counts["baseline: Triton 3.9 errs the same way"] += 1
                else:
                    counts["UNEXPLAINED"] += 1
                    unexplained.append((r, o))
        print(f"===== Triton {v}: {sum(counts.values())} cases")
        for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {n:5d}  {k}")
        for r, o in unexplained[:10]:
            print("  UNEXPLAINED", r["attr"][:200], r["shape"], "\n     T:",
                  (r.get("error") or json.dumps(r["ll"]))[:300], "\n     O:", json.dumps(o)[:300])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             "..", "tests", "versions", "lowering"))
