"""The TTGIR reader's quick ways (issue 29: a verify's reading must cost little) read what its general ways read:
a signature read once per text (`_signature`) against the outline of the whole statement, the one-line
operations, aliases and location aliases read at once against the line-by-line scan, and the shortcuts of
`split_top`, `_mask`, `parse_type` and the location parser against what they stand for. Inputs: the kernels,
part of tests/corpus, and awkward text made for each shortcut."""

import pathlib
import re

import pytest

from checker.syntax import ttgir
from checker.syntax.ttgir import read_ttgir

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = sorted((ROOT / "specs" / "kernels").glob("*.ttgir"))
CORPUS = sorted((ROOT / "tests" / "corpus").glob("*.ttgir"))[::12]     # (a sample: each is read twice below)

AWKWARD = """\
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b2 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}> #b3 = #blocked
!t = tensor<32xf32, #blocked>
#loc = loc("k.py":1:2)
#loc1 = loc("n"(#loc))
#loc2 = loc(callsite(#loc1 at #loc))
#loc3 = loc(fused[#loc1, "x"(#loc2)])
#loc4 = loc("a\\"b(":3:4) loc(#loc)
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func @f(%a: tensor<32xf32, #blocked>, %n: i32) {
    %0 = arith.addf %a, %a : tensor<32xf32, #blocked> loc(#loc2)
    %1:2 = tt.foo %0 : tensor<32xf32, #blocked> -> tensor<32xf32, #blocked>, tensor<32xf32, #blocked>
    %2 = tt.bar %1#0 {axis = 0 : i32, s = "x"} : tensor<32xf32, #blocked>
    %3 = tt.baz %2 : !t -> tensor<32xf32, #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], \
threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
    %4 = tt.qux %3 : tensor<32xf32, #blocked> -> <32xf32, #shared, #smem, mutable> loc(#loc) loc(#loc1)
    %5 = tt.make_tensor_descriptor %p : !tt.ptr<f16> -> !tt.tensordesc<tensor<16xf16>>
    %6 = tt.old %5 : !tt.tensordesc<tensor<16xf16, #blocked>> -> <16xf16, #blocked>
    %7 = ttg.async_wait %6 {num = 0 : i32}
    %8 = tt.weird %7 : tensor<32xf32, #blocked tensor<2xf32>>
    %9 = tt.range {a = tensor<4xf32, #blocked>} : tensor<32xi32, #blocked> -> tensor<32xi32,
        #blocked>
    %10 = amdgpu.buffer_load %x[%9] : tensor<32xf32, #blocked> loc("x.py":5:6)
    %11 = tt.call @g(%10) : (tensor<32xf32, #blocked>) -> tensor<32xf32, #blocked>
    %12 = tt.f %11 : tensor<32xf32, #blocked> -> tensor<32xf32, #blocked>) loc(#loc9)
    bare %12 : tensor<32xf32, #blocked>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func @g(%a: tensor<32xf32, #blocked>) {
    %0 = triton_gpu.x %a : tensor<32xf32, #blocked>
    tt.return
  }
}
"""


def _reads(texts, monkeypatch, quick):
    """What read_ttgir gives for each text, with the quick ways on, or off (the general way reads all)."""
    if not quick:
        monkeypatch.setattr(ttgir._Reader, "read_operation", lambda self, *a: False)
        monkeypatch.setattr(ttgir._Reader, "read_alias", lambda self, *a: False)
        monkeypatch.setattr(ttgir._Reader, "read_location_alias", lambda self, *a: False)
        monkeypatch.setattr(ttgir._Reader, "split_signature", lambda self, *a: None)
    try:
        return [read_ttgir(t, "k.ttgir") for t in texts]
    finally:
        monkeypatch.undo()


def test_quick_reading_reads_what_the_general_reading_reads(monkeypatch):
    """Operations, aliases and location aliases read at once, and signatures read once per text, give the
    modules of `read_whole_line`'s outline and `finish`, on kernels, corpus files and awkward text."""
    texts = [p.read_text() for p in KERNELS + CORPUS] + [AWKWARD]
    taken = {"read_operation": 0, "read_alias": 0, "read_location_alias": 0}
    for name in taken:
        original = getattr(ttgir._Reader, name)

        def counted(self, *a, original=original, name=name):
            taken[name] += bool(done := original(self, *a))
            return done
        monkeypatch.setattr(ttgir._Reader, name, counted)
    quick = [read_ttgir(t, "k.ttgir") for t in texts]
    monkeypatch.undo()
    assert quick == _reads(texts, monkeypatch, quick=False)
    assert taken["read_operation"] > 3000 and taken["read_alias"] > 150 and taken["read_location_alias"] > 1000
    m, refused = quick[-1]
    assert refused.refused and [p.line for p in refused.problems] == [35] and not refused.operations
    ops = {op.results[0] if op.results else op.name: op for op in m.operations}
    assert [p.line for p in m.problems] == [15, 19, 24, 25] and "unknown alias '#shared'" in m.problems[0].message
    assert ops["%3"].operand_types[0].shape == [32] and ops["%3"].result_types[0].encoding.rank == 1
    assert ops["%1#0"].results == ["%1#0", "%1#1"] and len(ops["%1#0"].result_types) == 2
    assert ops["%2"].attributes == {"axis": 0, "s": "x"} and ops["%2"].operands == ["%1#0"]
    assert [t.kind for t in ops["%5"].result_types] == ["tensordesc"] and ops["%10"].name == "amdg.buffer_load"
    assert ops["%0"].loc == ("k.py", 1, 2) and ops["%10"].loc == ("x.py", 5, 6) and ops["%9"].end_line == 21
    assert ops["%9"].attributes == {"a": "tensor<4xf32, #blocked>"} and ops["%9"].result_types[0].shape == [32]


def _outline_signature(tail):
    """`_signature` as the outline of the whole text and `_find_types` read it (what it stands for)."""
    outline = ttgir._outline(tail, closed=True)
    if "%" in tail or ":" in tail[1:] or outline is None:
        return None
    top, braces, ends, marks = outline
    bodies = [tail[a + 1:b - 1] if ch == "{" else tail[a + 2:ends[a + 1] - 1] for ch, a, b in top
              if (ch == "{" and b - a > 2) or (ch == "<" and tail[a + 1:a + 2] == "{")]
    arrow = next((p for p in marks if tail[p] == "-"), None)
    types = ttgir._find_types(tail, tail, ends, top, 0, 0, len(tail), ttgir._BARE, {})
    return bodies, [(text, kind, arrow is not None and pos > arrow) for pos, kind, text in types
                    if not (braces and ttgir._within(braces, pos))]


def _tails():
    found = set()
    for path in KERNELS + CORPUS:
        for line in path.read_text().splitlines():
            if (k := line.rfind(":")) > 0:
                found.add(line[k:])
    return sorted(found) + [
        ": tensor<4xf32, #b> -> tensor<4xf32, #b>", ": !tt.tensordesc<tensor<16xf16>>", ": tensor<4x tensor<f16>>",
        ": tensor<4x!ttg.memdesc<f16>>", ": tensor<1xf32, #a<{x}>> {s = 1}", ": <4xf16, #s> -> <2x4xf16, #s>",
        ": (tensor<4xf32>) -> !tt.ptr<f16> <{a = 1}>", ": tensor<2x-3xf32> -> tensor<2->3>", ": tensor<4xf32",
        ": tensor<4xf32>>", ": {tensor<4xf32>}", ": (a] b)", ": tensor<4xf32, #a<{b = [1, 2]}>>", ": -> ->",
        ": !tt.tensordesc<16xf16, #s> -> <{x}>", ": tensor<4xf32> , <4x8xf16, #s>", ": <f16, #s, mutable>"]


def test_a_signature_read_by_its_text_is_what_the_outline_reads():
    tails = _tails()
    assert len(tails) > 1000 and sum(ttgir._signature(t) is not None for t in tails) > 900
    assert [t for t in tails if ttgir._signature(t) != _outline_signature(t)] == []


def _split_by_scan(text):
    """`split_top(text)` by its scan of the masked text (what `_split_commas` stands for)."""
    masked, cuts, depth = ttgir._mask(text), [], 0
    for m in re.finditer(r"->|[<>\[\](){}]|,", masked):
        depth += (m.group() in "<[({") - (m.group() in ">])}")
        if m.group() == "," and depth == 0:
            cuts.append(m.start())
    return [p for p in (text[a + 1:b].strip() for a, b in zip([-1] + cuts, cuts + [len(text)])) if p]


@pytest.mark.parametrize("text", [
    "128x32xf16, #blocked1", "128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>", "4x!tt.ptr<f16, 1>, #b",
    "a, , b,", "", ",", "a->b, c", "a>, b", "<a, b>>, c, (d, e], f", "x-->y, z", "{a = [1, 2]}, b", " , a ,b "])
def test_commas_are_split_by_counting_brackets_as_the_scan_does(text):
    assert ttgir.split_top(text) == _split_by_scan(text)


def _mask_in_turn(text):
    """`_mask` blanking each location after those after it (what its one pass stands for)."""
    out = ttgir._blank_strings(text)
    for m in reversed(list(ttgir._LOC_CALL.finditer(out))):
        end = ttgir._group_end(out, m.end() - 1)
        out = out[:m.start()] + re.sub(r"[^\n]", " ", out[m.start():end]) + out[end:]
    return out


@pytest.mark.parametrize("text", [
    '%0 = f(%a) : i32 loc("k.py":1:2)', "a loc(#x) b loc(#y)", "loc(fused[loc(#a), loc(#b)]) x loc(c",
    'loc(a loc(b) c) loc(d', "loc(loc(loc()))", 'x loc("a)":1:2)\n  loc(#l)', "loc(", "f() loc(#a)) loc(#b)"])
def test_locations_are_masked_in_one_pass_as_in_turn(text):
    assert ttgir._mask(text) == _mask_in_turn(text)


@pytest.mark.parametrize("text", [
    'loc("k.py":3:7)', ' loc ( "k.py" : 3 : 7 ) ', 'loc("a\\\\2e\\"b.py":1:2)', 'loc("k.py":3:7) x', 'loc("k.py":3)',
    'loc("k.py":03:7)', 'loc("k.py":3:7 to 4:5)', 'loc("k.py":\u0663:7)', 'loc("k.py":3:7a)', "loc(#a)"])
@pytest.mark.parametrize("depth", [0, 97, 98, 99])
def test_a_file_location_is_read_at_once_as_its_tokens_read(monkeypatch, text, depth):
    defs = {"a": 'loc("a.py":1:2)'}
    quick = ttgir._LocParser(defs).frames(text, depth)
    monkeypatch.setattr(ttgir, "_FILE_LOCATION", re.compile(r"(?!)"))
    assert quick == ttgir._LocParser(defs).frames(text, depth)


@pytest.mark.parametrize("text", [
    "tensor<128x32xf16, #b>", "tensor<f16>", "tensor<4xxf16>", "tensor<4x 8xf16>", "tensor<4x?xf16>",
    "tensor<4x-1xf16>", "tensor<4x8x>", "tensor<4x\u0663xf16>", "tensor<4x!tt.ptr<f16>, #b>", "tensor<4xf17>",
    "!ttg.memdesc<2x4xf16, #s, #smem, mutable, 4x4>", "tensor<4x8xf16x2>"])
def test_a_static_shape_is_read_at_once_as_the_loop_reads_it(monkeypatch, text):
    def read():
        try:
            return ttgir.parse_type(text, {}, lambda t, a: ("encoding", t))
        except Exception as e:          # the same error, the same message
            return repr(e)
    quick = read()
    monkeypatch.setattr(ttgir, "_STATIC_SHAPE", re.compile(r"(?!)"))
    assert quick == read()
