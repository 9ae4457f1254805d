"""Per-lane shared-memory addresses of straight-line PTX, by concrete evaluation (no GPU needed).

    from ptx_lanes import shared_accesses
    for acc in shared_accesses(ptx, threads=128):
        acc["instruction"], acc["line"], acc["addresses"]   # one byte address per thread

Every thread's registers are evaluated over the kernel's straight-line body: ``%tid.x`` is the
thread index, the other special registers and kernel parameters are 0, ``global_smem`` is 0 (so
addresses are relative to the dynamic shared-memory base) and values loaded from memory are
unknown. Integer arithmetic of the kinds LLVM's NVPTX back end emits for address computations is
modelled (mov, add/sub/mul/mad, and/or/xor/not, shl/shr, bfe/bfi, neg, selp/setp, cvt, min/max,
prmt); anything else makes its destination unknown. A shared-memory access (ld/st.shared,
ldmatrix, stmatrix, cp.async) is recorded with the TTGIR line of the last ``.loc``, its operand
text and every thread's byte address (None where unknown). Predicated accesses are recorded with
their predicate per thread (None: not evaluated). Branches are not followed: the body is read top
to bottom, which is exact for kernels without control flow (the small Gluon kernels of
tools/ldmatrix_rows.py).
"""

from __future__ import annotations

import re

LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+")
INSTR = re.compile(r"^\s*(@!?%\w+\s+)?([a-z][\w.:]*)\s*(.*?);\s*(//.*)?$")
ACCESS = re.compile(r"^(ld\.shared|st\.shared|ldmatrix|stmatrix|cp\.async\.c[ag]\.shared)")
ADDR = re.compile(r"\[\s*([%\w]+)?\s*(?:\+\s*(-?(?:0x[0-9a-fA-F]+|\d+)))?\s*\]")


def _width(op: str) -> int:
    m = re.search(r"\.[bsuf](8|16|32|64)\b", op)
    return int(m.group(1)) if m else 32


def _signed(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) & 1 else v


class _Thread:
    def __init__(self, tid: int):
        self.r: dict[str, int | None] = {"%tid.x": tid, "%tid.y": 0, "%tid.z": 0, "%ctaid.x": 0,
                                         "%ctaid.y": 0, "%ctaid.z": 0, "global_smem": 0, "%laneid": tid % 32,
                                         "%warpid": tid // 32}

    def val(self, x: str) -> int | None:
        x = x.strip()
        if re.fullmatch(r"-?0x[0-9a-fA-F]+|-?\d+", x):
            return int(x, 0)
        if re.fullmatch(r"0[dDfF][0-9a-fA-F]+", x):
            return None
        return self.r.get(x)


def _split_args(rest: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in rest:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _step(t: _Thread, op: str, args: list[str]) -> None:
    base = op.split(".")[0]
    w = _width(op)
    mask = (1 << w) - 1
    if not args or not args[0].startswith("%"):
        return
    dst = args[0]
    src = [t.val(a) for a in args[1:]]

    def setv(v):
        t.r[dst] = None if v is None else v & mask

    if any(s is None for s in src) and base not in ("selp",):
        if base in ("mov", "cvt", "add", "sub", "and", "or", "xor", "shl", "shr", "mul", "mad", "bfe", "bfi",
                    "neg", "not", "min", "max", "prmt", "setp", "cvta"):
            t.r[dst] = None
            if base == "setp" and "|" in dst:
                for d in dst.split("|"):
                    t.r[d] = None
        return
    s = src
    if base == "mov" or base == "cvt" or base == "cvta":
        if len(args) == 2 and args[1].startswith("{"):
            t.r[dst] = None
            return
        setv(s[0])
    elif base == "add":
        setv(s[0] + s[1])
    elif base == "sub":
        setv(s[0] - s[1])
    elif base == "and":
        setv(s[0] & s[1])
    elif base == "or":
        setv(s[0] | s[1])
    elif base == "xor":
        setv(s[0] ^ s[1])
    elif base == "not":
        setv(~s[0])
    elif base == "neg":
        setv(-s[0])
    elif base == "shl":
        setv(s[0] << s[1] if s[1] < w else 0)
    elif base == "shr":
        if ".s" in op:
            setv(_signed(s[0], w) >> min(s[1], w - 1))
        else:
            setv((s[0] & mask) >> s[1] if s[1] < w else 0)
    elif base == "mul":
        if ".wide" in op:
            t.r[dst] = (_signed(s[0], w) * _signed(s[1], w) if ".s" in op else s[0] * s[1]) & ((1 << 2 * w) - 1)
        elif ".hi" in op:
            t.r[dst] = None
        else:
            setv(s[0] * s[1])
    elif base == "mad":
        if ".wide" in op:
            prod = _signed(s[0], w) * _signed(s[1], w) if ".s" in op else s[0] * s[1]
            t.r[dst] = (prod + s[2]) & ((1 << 2 * w) - 1)
        elif ".hi" in op:
            t.r[dst] = None
        else:
            setv(s[0] * s[1] + s[2])
    elif base == "bfe":
        pos, ln = s[1] & 0xFF, s[2] & 0xFF
        v = (s[0] & mask) >> pos & ((1 << ln) - 1) if ln else 0
        if ".s" in op and ln and v >> (ln - 1) & 1:
            v -= 1 << ln
        setv(v)
    elif base == "bfi":
        pos, ln = s[2] & 0xFF, s[3] & 0xFF
        m = ((1 << ln) - 1) << pos
        setv((s[1] & ~m) | (s[0] << pos & m))
    elif base == "min":
        setv(min(_signed(s[0], w), _signed(s[1], w)) if ".s" in op else min(s[0], s[1]))
    elif base == "max":
        setv(max(_signed(s[0], w), _signed(s[1], w)) if ".s" in op else max(s[0], s[1]))
    elif base == "selp":
        p = t.val(args[3])
        t.r[dst] = None if p is None else (None if (s[0] if p else s[1]) is None else (s[0] if p else s[1]) & mask)
    elif base == "setp":
        cmp = op.split(".")[1]
        a, b = (_signed(s[0], w), _signed(s[1], w)) if ".s" in op else (s[0], s[1])
        r = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b,
             "lo": a < b, "ls": a <= b, "hi": a > b, "hs": a >= b}.get(cmp)
        for d in dst.split("|"):
            t.r[d] = None if r is None else int(r)
    elif base == "prmt":
        a, b, c = s[0] & 0xFFFFFFFF, s[1] & 0xFFFFFFFF, s[2]
        bs = [(a | b << 32) >> (8 * i) & 0xFF for i in range(8)]
        setv(sum(bs[(c >> (4 * i)) & 7] << (8 * i) for i in range(4)))
    else:
        t.r[dst] = None


def shared_accesses(ptx: str, threads: int) -> list[dict]:
    """Every shared-memory access of the straight-line PTX body (module docstring)."""
    ts = [_Thread(i) for i in range(threads)]
    line = 0
    out = []
    for text in ptx.splitlines():
        m = LOC.match(text)
        if m:
            line = int(m.group(1))
            continue
        m = INSTR.match(text)
        if not m:
            continue
        pred, op, rest = m.group(1), m.group(2), m.group(3)
        if op.startswith(".") or op in ("ret", "bar", "exit"):
            continue
        args = _split_args(rest)
        if ACCESS.match(op):
            addr_arg = next((a for a in args if a.startswith("[")), None)
            am = ADDR.fullmatch(addr_arg) if addr_arg else None
            if am is None:
                continue
            reg, off = am.group(1), int(am.group(2), 0) if am.group(2) else 0
            addrs = []
            preds = []
            for t in ts:
                b = t.val(reg) if reg else 0
                addrs.append(None if b is None else (b + off) & 0xFFFFFFFF)
                if pred:
                    p = t.val(pred.strip().lstrip("@!"))
                    preds.append(None if p is None else bool(p) != pred.strip().startswith("@!"))
            out.append({"line": line, "instruction": op, "operands": rest, "addresses": addrs,
                        "predicate": preds if pred else None})
            if op.startswith(("ld", "ldmatrix")) and args and not args[0].startswith("["):
                for d in re.findall(r"%\w+", args[0]):
                    for t in ts:
                        t.r[d] = None
            continue
        if op.startswith(("ld.", "atom", "cp.", "st.", "mma", "wgmma", "shfl", "vote", "red", "tcgen05")):
            if args and args[0].startswith(("%", "{")):
                for d in re.findall(r"%\w+", args[0]):
                    for t in ts:
                        t.r[d] = None
            continue
        if pred:
            pv = pred.strip()
            for t in ts:
                p = t.val(pv.lstrip("@!"))
                if p is None:
                    t.r[args[0]] = None
                elif bool(p) != pv.startswith("@!"):
                    _step(t, op, args)
            continue
        for t in ts:
            _step(t, op, args)
    return out
