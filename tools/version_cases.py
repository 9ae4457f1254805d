"""Cases for tools/version_oracle.py, and the spelling of each case's attribute for an older Triton.

    python tools/version_cases.py cases > cases39.jsonl          # the case set, in Triton 3.9 spelling
    python tools/version_cases.py spell 3.5 < cases39.jsonl > cases35.jsonl
    python tools/version_cases.py corpus tests/versions/corpus/3.5 > corpus35.jsonl   # a corpus, as spelled there

The case set: every distinct (encoding, shape) of a ``tensor<..>`` / ``!ttg.memdesc<..>`` type in
tests/corpus/*.ttgir (aliases expanded), every record of tests/conformance/lowering.jsonl that carries the
attribute text Triton 3.9 printed, and blocked layouts (and slices of them) on shapes smaller than their
CTA tile. padded_shared is kept to a few cases: no Triton version has a LinearLayout for it
(toLinearLayout aborts), and each abort costs a fresh oracle child.

Spelling (found by parsing and printing back with each version, see tools/version_oracle.py's "printed"):
  3.5  CGALayout = [[..]]  ->  CTAsPerCGA = [..], CTASplitNum = [..], CTAOrder = [..]  (when the bases have
       the old form: per dim in CTAOrder, its split bases 1, 2, 4.. then its broadcast zeros);
       amd_mfma elementBitWidth = 64 -> elementType = f64 (3.5 silently ignores elementBitWidth);
       nvmma_shared rank = N -> a rank-N CTA triple (3.5 has no `rank` key);
       amd_wmma ctaLayout = {warp = ..} -> warpsPerCTA = [..] (3.5 and 3.6);
       tensor_memory_encoding colStride -> unpacked (colStride * bitwidth == 32 <=> unpacked = true),
       CGALayout -> CTASplitM / CTASplitN (3.5, 3.6, 3.7), twoCTAs dropped (3.5 has none);
       padded_shared drops `shape = [..]`.
  Attributes an older version does not have (shared_linear in 3.5, partitioned_shared before 3.8, WMMA v3
  in 3.5) are passed unchanged: the version's parser rejecting them is the recorded answer.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys

SHARED_FAMILIES = {"swizzled_shared", "nvmma_shared", "padded_shared", "shared_linear", "partitioned_shared",
                   "amd_rotating_shared"}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = ("swizzled_shared", "nvmma_shared", "padded_shared", "shared_linear", "partitioned_shared",
          "amd_rotating_shared", "tensor_memory")


# ------------------------------------------------------------------ text helpers

def group_end(text: str, start: int, open_="<", close=">") -> int:
    """Index just past the group that opens at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError(f"unbalanced {open_}{close} in {text!r}")


def split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<[{(":
            depth += 1
        elif ch in ">]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


ALIAS_REF = re.compile(r"#([A-Za-z_][\w$.-]*)")


def expand(text: str, aliases: dict[str, str]) -> str:
    def sub(m):
        name = m.group(1)
        if name in aliases:
            return expand(aliases[name], aliases)
        return m.group(0)
    return ALIAS_REF.sub(sub, text)


# ------------------------------------------------------------------ case set

def corpus_cases(folder: str = "tests/corpus") -> list[dict]:
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, folder, "*.ttgir"))):
        text = open(path).read()
        aliases = {}
        for m in re.finditer(r"^#([\w$.-]+) = (.*)$", text, re.M):
            body = m.group(2).strip()
            if not body.startswith("loc("):
                aliases[m.group(1)] = body
        for m in re.finditer(r"(tensor<|!ttg\.memdesc<)", text):
            start = m.end() - 1
            try:
                body = text[start + 1:group_end(text, start) - 1]
            except ValueError:
                continue
            parts = split_top(body)
            if len(parts) < 2:
                continue
            dm = re.match(r"^((?:\d+x)*)(.+)$", parts[0])
            if not dm or not dm.group(1):
                continue
            shape = [int(x) for x in dm.group(1).rstrip("x").split("x")]
            attr = expand(parts[1], aliases)
            if not attr.startswith("#"):
                continue
            memdesc = m.group(1).startswith("!")
            out.append({"attr": attr, "shape": shape, "memdesc": memdesc, "elem": dm.group(2),
                        "origin": "corpus:" + os.path.basename(path)})
    return out


def conformance_cases() -> list[dict]:
    out = []
    for line in open(os.path.join(ROOT, "tests/conformance/lowering.jsonl")):
        r = json.loads(line)
        attr = r.get("mlir_attr")
        if not attr:
            continue
        elem = {8: "i8", 16: "f16", 32: "f32", 64: "f64"}.get(r.get("element_bitwidth") or 16, "f16")
        out.append({"attr": attr, "shape": r["shape"], "memdesc": r["family"] in SHARED_FAMILIES,
                    "elem": elem, "origin": "conformance:" + r["id"]})
    return out


def blocked_text(spt, tpw, wpc, order, cga=None):
    t = (f"#ttg.blocked<{{sizePerThread = {list(spt)}, threadsPerWarp = {list(tpw)}, "
         f"warpsPerCTA = {list(wpc)}, order = {list(order)}")
    if cga:
        t += f", CGALayout = {cga}"
    return t + "}>"


def small_shape_cases() -> list[dict]:
    """Blocked layouts on shapes smaller than sizePerThread*threadsPerWarp*warpsPerCTA along some dim,
    and slices of them."""
    layouts = [
        ([4, 4], [8, 4], [1, 2], [1, 0], None),
        ([1, 4], [4, 8], [4, 1], [1, 0], None),
        ([4, 1], [8, 4], [1, 4], [0, 1], None),
        ([1, 1], [32, 1], [4, 1], [0, 1], None),
        ([2, 2], [4, 8], [2, 2], [1, 0], [[1, 0]]),
        ([1, 8], [8, 8], [2, 4], [1, 0], None),          # wave64
        ([1, 4], [4, 8], [4, 1], [1, 0], [[0, 1], [1, 0]]),
    ]
    shapes2 = [[1, 1], [2, 2], [64, 1], [1, 64], [128, 1], [1, 128], [4, 8], [32, 2], [8, 256]]
    out = []
    for spt, tpw, wpc, order, cga in layouts:
        attr = blocked_text(spt, tpw, wpc, order, cga)
        for s in shapes2:
            out.append({"attr": attr, "shape": s, "memdesc": False, "elem": "f32", "origin": "small"})
        for dim in (0, 1):
            sl = f"#ttg.slice<{{dim = {dim}, parent = {attr}}}>"
            for n in (1, 2, 16, 64, 512):
                out.append({"attr": sl, "shape": [n], "memdesc": False, "elem": "f32", "origin": "small"})
    for attr in [blocked_text([4], [32], [4], [0]), blocked_text([2], [64], [2], [0]),
                 blocked_text([1], [32], [8], [0], [[1]])]:
        for n in (1, 2, 16, 64, 128, 256):
            out.append({"attr": attr, "shape": [n], "memdesc": False, "elem": "f32", "origin": "small"})
    for spt, tpw, wpc, order in [([1, 2, 4], [2, 4, 4], [2, 2, 1], [2, 1, 0]),
                                 ([2, 1, 1], [1, 8, 4], [1, 1, 4], [0, 2, 1])]:
        attr = blocked_text(spt, tpw, wpc, order)
        for s in ([1, 1, 4], [2, 8, 1], [4, 1, 1], [1, 16, 16], [8, 2, 64]):
            out.append({"attr": attr, "shape": s, "memdesc": False, "elem": "f32", "origin": "small"})
        for dim in (0, 2):
            sl = f"#ttg.slice<{{dim = {dim}, parent = {attr}}}>"
            for s in ([1, 1], [2, 4], [16, 1], [1, 32]):
                out.append({"attr": sl, "shape": s, "memdesc": False, "elem": "f32", "origin": "small"})
    return out


def all_cases() -> list[dict]:
    seen, out, padded = set(), [], 0
    for c in corpus_cases() + conformance_cases() + small_shape_cases():
        key = (c["attr"], tuple(c["shape"]), c["memdesc"])
        if key in seen:
            continue
        if "padded_shared" in c["attr"]:
            if padded >= 3:
                continue
            padded += 1
        size = 1
        for s in c["shape"]:
            size *= s
        if size > (1 << 22):
            continue
        seen.add(key)
        out.append(c)
    return out


# ------------------------------------------------------------------ spelling for older versions

class Inexpressible(Exception):
    pass


def _list_at(text: str, start: int) -> tuple[list, int]:
    end = group_end(text, start, "[", "]")
    return json.loads(text[start:end]), end


def _cga_to_triple(bases: list[list[int]]) -> tuple[list[int], list[int], list[int]]:
    """3.9 CGALayout bases -> (CTAsPerCGA, CTASplitNum, CTAOrder) of 3.5, or Inexpressible."""
    rank = len(bases[0])
    split, ctas, seq = [1] * rank, [1] * rank, []     # seq: dims in the order their group starts
    cur = None
    if bases and not any(bases[0]):          # leading broadcast: give it to a dim that has no split bases
        free = [d for d in reversed(range(rank)) if not any(b[d] for b in bases)]
        if not free:
            raise Inexpressible("CGALayout starts with a broadcast basis and every dim is split")
        cur = free[0]
        seq.append(cur)
    for b in bases:
        nz = [d for d in range(rank) if b[d]]
        if not nz:
            if cur is None:
                raise Inexpressible("CGALayout starts with a broadcast basis")
            ctas[cur] *= 2
            continue
        if len(nz) != 1:
            raise Inexpressible(f"CGALayout basis {b} is not along one dim")
        d = nz[0]
        if d != cur:
            if d in seq:
                raise Inexpressible("CGALayout bases of a dim are not contiguous")
            seq.append(d)
            cur = d
        elif ctas[d] != split[d]:
            raise Inexpressible("CGALayout split basis after a broadcast one")
        if b[d] != split[d]:
            raise Inexpressible(f"CGALayout basis {b} is not the next power of two")
        split[d] *= 2
        ctas[d] *= 2
    order = seq + [d for d in reversed(range(rank)) if d not in seq]
    return ctas, split, order


def _replace_cga(text: str, fn) -> str:
    """Replace every `CGALayout = [...]` (with its leading ', ') by fn(bases) (text, '' to drop)."""
    out, i = "", 0
    for m in re.finditer(r",?\s*CGALayout = \[", text):
        if m.start() < i:
            continue
        bases, end = _list_at(text, m.end() - 1)
        out += text[i:m.start()] + fn(bases)
        i = end
    return out + text[i:]


def _triple(bases):
    if not bases:
        return ""
    ctas, split, order = _cga_to_triple(bases)
    return f", CTAsPerCGA = {ctas}, CTASplitNum = {split}, CTAOrder = {order}"


def _tmem_split(bases):
    if not bases:
        return ""
    m = n = 1
    for b in bases:
        if b == [m, 0]:
            m *= 2
        elif b == [0, n]:
            n *= 2
        else:
            raise Inexpressible(f"tensor memory CGALayout basis {b} has no CTASplitM/N form")
    return (f", CTASplitM = {m}" if m > 1 else "") + (f", CTASplitN = {n}" if n > 1 else "")


def _wmma_warps(text: str, rank_hint: int) -> str:
    """ctaLayout = {warp = [[..]]} -> warpsPerCTA = [..] (warp bases must go dim rank-1 first, 1, 2, 4..)."""
    def one(m_start, body_end, body):
        entries = {}
        for part in split_top(body):
            k, v = part.split("=", 1)
            entries[k.strip()] = json.loads(v.strip())
        if entries.get("register"):
            raise Inexpressible("amd_wmma ctaLayout has register bases")
        warp = entries.get("warp", [])
        rank = len(warp[0]) if warp else rank_hint
        counts, d = [1] * rank, rank - 1
        for b in warp:
            nz = [i for i in range(rank) if b[i]]
            if len(nz) != 1:
                raise Inexpressible(f"amd_wmma warp basis {b}")
            while d >= 0 and nz[0] != d:
                d -= 1
            if d < 0 or b[d] != counts[d]:
                raise Inexpressible("amd_wmma warp bases not in warpsPerCTA order")
            counts[d] *= 2
        return f"warpsPerCTA = {counts}"
    out, i = "", 0
    for m in re.finditer(r"ctaLayout = \{", text):
        end = group_end(text, m.end() - 1, "{", "}")
        out += text[i:m.start()] + one(m.start(), end, text[m.end():end - 1])
        i = end
    return out + text[i:]


def _in_groups(text: str, opener: str, fn) -> str:
    """Apply fn to every `opener...>` group of text (not nested in each other)."""
    out, i = "", 0
    while True:
        j = text.find(opener, i)
        if j < 0:
            return out + text[i:]
        end = group_end(text, j + len(opener) - 1)
        out += text[i:j] + fn(text[j:end])
        i = end


def _nvmma_rank(group: str) -> str:
    """3.9 `rank = N` (printed when N != 2 and there is no CGALayout) -> a rank-N CTA triple for 3.5."""
    m = re.search(r",\s*rank = (\d+)", group)
    if not m:
        return group
    n = int(m.group(1))
    triple = (f", CTAsPerCGA = {[1] * n}, CTASplitNum = {[1] * n}, CTAOrder = {list(reversed(range(n)))}"
              if "CTAsPerCGA" not in group else "")
    return group.replace(m.group(0), triple)


def _elem_bits(elem: str) -> int:
    m = re.search(r"(\d+)", elem)
    return int(m.group(1)) if m else 32


def spell(case: dict, version: str) -> str:
    """The 3.9-spelled attribute of `case` in `version`'s spelling (Inexpressible when it has none)."""
    attr = case["attr"]
    v = tuple(int(x) for x in version.split(".")[:2])
    if v >= (3, 8):
        return attr
    if "tensor_memory_encoding" in attr:
        attr = _replace_cga(attr, _tmem_split)
        if v < (3, 6):
            m = re.search(r"colStride = (\d+)", attr)
            if m:
                bits = _elem_bits(case.get("elem", "f32"))
                stride = int(m.group(1))
                unpacked = "true" if stride * bits == 32 else "false"
                attr = attr.replace(m.group(0), f"unpacked = {unpacked}")
            attr = re.sub(r",\s*twoCTAs = \w+", "", attr)
        return attr
    if v < (3, 7) and "ctaLayout" in attr:
        attr = _wmma_warps(attr, len(case["shape"]) + attr.count("#ttg.slice<"))
    if v < (3, 6):
        attr = _replace_cga(attr, _triple)
        attr = _in_groups(attr, "#ttg.amd_mfma<", lambda g: re.sub(
            r",\s*elementBitWidth = 32", "", g.replace("elementBitWidth = 64", "elementType = f64")))
        attr = _in_groups(attr, "#ttg.nvmma_shared<", _nvmma_rank)
        if "padded_shared" in attr:
            if "offset = " in attr:
                raise Inexpressible("padded_shared with explicit offset bases")
            attr = re.sub(r",\s*shape = \[[^\]]*\]", "", attr)
    return attr


def main(argv=None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["cases"]:
        for c in all_cases():
            print(json.dumps(c))
    elif argv[:1] == ["corpus"]:        # every distinct (encoding, shape) of one corpus folder, as it is spelled there
        seen = set()
        for c in corpus_cases(argv[1]):
            key = (c["attr"], tuple(c["shape"]), c["memdesc"])
            if key not in seen and "padded_shared" not in c["attr"]:
                seen.add(key)
                print(json.dumps(c))
    elif argv[:1] == ["spell"]:
        for line in sys.stdin:
            c = json.loads(line)
            c["attr39"] = c["attr"]
            try:
                c["attr"] = spell(c, argv[1])
            except Inexpressible as e:
                c["inexpressible"] = str(e)
            print(json.dumps(c))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
