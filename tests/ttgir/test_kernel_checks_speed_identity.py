"""The fast paths of the TTGIR checks (checker/ttgir/builder.py, allocation.py, liveness.py, pairing.py) give what
the plain forms they stand for give: a check adopted from its fields against ``Check(**fields)``, live ranges
whose users and defining blocks are gathered when first asked against the eager ones, the interference graph
against its pairwise definition, and a memoized `Builder.lowers` and `BufferPairs.partners` against the plain
calls."""

import random
from pathlib import Path

from checker.encodings import lower
from checker.errors import CheckerError
from checker.hardware import PRESETS
from checker.spec import Check
from checker.syntax.ttgir import read_ttgir
from checker.ttgir import allocation, builder, liveness
from checker.ttgir.allocation import Analysis, Buffer, _intersects, _members
from checker.ttgir.kernel import kernel_checks
from checker.ttgir.pairing import BufferPairs, _memdesc_value, _root, access_of

ROOT = Path(__file__).resolve().parents[2]


def _modules():
    paths = sorted((ROOT / "specs" / "kernels").glob("*.ttgir"))
    paths += sorted((ROOT / "tests" / "allocation").rglob("*.ttgir"))
    return [m for path in paths for m in read_ttgir(path.read_text(), str(path))]


def _functions(m):
    ops = m.operations
    return [allocation.Function(ops, _members(ops, i)) for i, op in enumerate(ops)
            if op.name == "tt.func" and op.parent is None]


def test_an_adopted_check_is_the_check():
    fields = {"id": "f:1:tt.load:coalesced", "property": "coalesced", "operands": (), "shape": (64, 32),
              "layout_shape": None, "dtype": "f16", "dtype_bits": 16, "hardware": PRESETS["sm90"],
              "params": (("kind", "load"),), "expect": "holds", "expect_conflicts": None, "expect_level": None,
              "file": "f", "line": 1, "op": "tt.load", "severity": "warning", "python": ("k.py", 3, 4),
              "operand_sources": (), "param_lines": (), "triton_version": "3.9"}
    made, plain = builder._new_check(dict(fields)), Check(**fields)
    assert builder._PLAIN_CHECK
    assert type(made) is Check and made == plain and hash(made) == hash(plain) and repr(made) == repr(plain)
    assert list(vars(made).items()) == list(vars(plain).items())
    partial = {k: v for k, v in fields.items() if k not in ("operand_sources", "param_lines")}
    assert list(vars(builder._new_check(dict(partial))).items()) == list(vars(plain).items())   # Check's defaults


def test_live_ranges_gathered_when_asked_are_the_eager_ones():
    """Every value of every function (results, arguments, the ones a structured op renames): `live_range`, which
    finds a result's block and the users when first asked, against a flow whose blocks of definition are filled
    in advance, block by block, as the analysis once did."""
    values = 0
    for m in _modules():
        for fn in _functions(m):
            flow = fn.flow
            eager = liveness.ControlFlow(fn.ops, fn.members, fn.operand_values.__getitem__, allocation.argument_region)
            for b, block in enumerate(eager.blocks):
                for item in block.items:
                    if item >= 0:
                        for r in eager.ops[item].results:
                            v = ("result", item, r)
                            eager.defined_in.setdefault(eager.value(v), b)
            for i in fn.members:
                for v in fn.values(i) + fn.argument_values(i):
                    assert flow.live_range(v) == eager.live_range(v), (m.file, v)
                    values += 1
    assert values > 5_000


def test_interference_is_the_pairwise_definition():
    rng = random.Random(7)

    def plain(order, live, concurrent):
        graph = {}
        for x in order:
            near = [y for y in order if y is not x and _intersects((x.offset, x.offset + x.size),
                                                                   (y.offset, y.offset + y.size))
                    and (_intersects(live[id(x)], live[id(y)]) or (concurrent is not None and concurrent(x, y)))]
            if near:
                graph[id(x)] = near
        return graph

    for _ in range(300):
        order = []
        for k in range(rng.randint(1, 9)):
            start = rng.randint(0, 20)
            order.append(Buffer(k, "op", "scratch", rng.choice((0, 16, 128, 256)), 16, start,
                                start + rng.randint(0, 6), offset=rng.randint(0, 4) * 64, owner=k))
        live = {id(b): (b.start, b.end) for b in order}
        for concurrent in (None, lambda x, y: (x.owner + y.owner) % 3 == 0):
            assert allocation._interference(order, live, concurrent) == plain(order, live, concurrent)


def test_memoized_lowers_and_partners_are_the_plain_calls():
    for m in _modules():
        b = builder.Builder(m, m.file, None, builder.KernelChecks(m.file))
        pairs = BufferPairs(m.operations, Analysis(m))
        for op in m.operations:
            for t in op.types:
                if t.encoding is None:
                    continue
                for shape in (t.shape, [1] * len(t.shape), [3] + list(t.shape)):
                    try:
                        lower(t.encoding, shape)
                        plain = True
                    except CheckerError:
                        plain = False
                    assert b.lowers(t.encoding, shape) == plain == b.lowers(t.encoding, shape)
            me = access_of(op)
            if me is None:
                continue
            mine, root = pairs.allocations(op), _root(_memdesc_value(op), pairs.defs)
            expected = [acc for acc, theirs, their_root in pairs._sides
                        if acc.direction != me.direction and acc.op is not op
                        and ((mine and theirs and mine & theirs) or their_root == root)
                        and acc.mem.encoding_text == me.mem.encoding_text and list(acc.reg.shape) == list(me.reg.shape)]
            assert pairs.partners(op) == expected


def test_kernel_checks_repeat_themselves():
    """Building a module's checks twice (the second time with every lowering cached) gives the same checks."""
    for path in sorted((ROOT / "specs" / "kernels").glob("*.ttgir")):
        text = path.read_text()
        first = kernel_checks(read_ttgir(text, str(path)), str(path), text=text)
        again = kernel_checks(read_ttgir(text, str(path)), str(path), text=text)
        assert first.obligations == again.obligations and first.skips == again.skips
