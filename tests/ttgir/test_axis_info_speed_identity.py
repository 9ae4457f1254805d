"""The AxisInfo analysis' fast paths (checker/ttgir/axis_info.py) give what the plain forms they stand for give:
`add_sub` written out against the BinaryOpVisitorImpl form (`_binary` with per-dim rules). (The fixed point's inline
visit of ordinary ops is compared with `_visit` on every op of every round in test_axis_info.py.) And the analysis
of the values the global accesses read (`analyze(module, access_reads)`, what a verify runs) against the whole
module's, access by access."""

import itertools
import pathlib

from checker.syntax.ttgir import read_ttgir
from checker.ttgir.axis_info import (
    ACCESSES,
    MAX_DIVISOR,
    Analysis,
    AxisInfo,
    _binary,
    _needed,
    _scoped,
    access_of,
    access_reads,
    add_sub,
    analyze,
    gcd,
    times,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _add_sub_by_binary(kind, lhs, rhs, shape, elem_bytes=1):
    """AddSubOpAxisInfoVisitor as `_binary` and its per-dim rules (add_sub before it was written out)."""
    def contiguity(d):
        if kind == "sub":
            return gcd(lhs.contiguity[d], rhs.constancy[d])
        return max(gcd(lhs.constancy[d], rhs.contiguity[d]), gcd(lhs.contiguity[d], rhs.constancy[d]))

    def divisibility(d):
        ld, rd = lhs.divisibility[d], rhs.divisibility[d]
        if kind == "addptr":
            rd = times(rhs.divisibility[d], elem_bytes)
        if lhs.contiguity[d] > 1 and rhs.contiguity[d] > 1:
            if kind == "sub" and lhs.contiguity[d] == rhs.contiguity[d]:
                return gcd(ld, rd)
            return 2 if ld % 2 == 0 and rd % 2 == 0 else 1
        if lhs.contiguity[d] > 1 or rhs.contiguity[d] > 1:
            return gcd(ld, rd, times(contiguity(d), elem_bytes if kind == "addptr" else 1))
        return gcd(ld, rd)

    constant = None
    if lhs.constant is not None and rhs.constant is not None:
        constant = {"add": lhs.constant + rhs.constant, "sub": lhs.constant - rhs.constant,
                    "addptr": lhs.constant + rhs.constant * elem_bytes}[kind]
    return _binary(lhs, rhs, shape, constant, contiguity, divisibility)


def _outcome_of(f, *args):
    try:
        return f(*args)
    except Exception as e:          # the same exception, where the inputs are of two ranks
        return type(e), str(e)


def test_add_sub_written_out_is_the_binary_visitor():
    runs = (-3, 0, 1, 2, 4, 128)
    divisors = (-2, 0, 1, 6, 16, MAX_DIVISOR, 3 * MAX_DIVISOR)
    infos = [AxisInfo((c,), (v,), (k,), constant) for c, v, k in itertools.product(runs, divisors, runs)
             for constant in (None, 5)]
    cases = 0
    for kind, elem_bytes in (("add", 1), ("sub", 1), ("addptr", 2), ("addptr", 0)):
        for lhs, rhs in itertools.product(infos[::7], infos[::5]):
            assert add_sub(kind, lhs, rhs, [64], elem_bytes) == _add_sub_by_binary(kind, lhs, rhs, [64], elem_bytes)
            cases += 1
    two = AxisInfo((128, 1), (16, 4), (1, 8))
    mixed = ((two, infos[40], [4, 128]), (infos[40], two, []), (two, AxisInfo((1, 2), (8,), (1, 1)), None))
    for lhs, rhs, shape in mixed:
        for kind in ("add", "sub", "addptr"):
            assert _outcome_of(add_sub, kind, lhs, rhs, shape, 4) == \
                _outcome_of(_add_sub_by_binary, kind, lhs, rhs, shape, 4)
    assert cases > 10_000


def test_the_accesses_slice_gives_every_access_what_the_whole_analysis_gives():
    """Over the kernels, tests/corpus and the per-release fixtures: each access's `GlobalAccess` (vector, AxisInfo
    of its pointer and mask, strides) is the same from the analysis of what the accesses read. (Measured
    beyond the tests: 11,181 modules of the library hunts, 98,956 accesses, none different.)"""
    files = sorted((ROOT / "specs" / "kernels").glob("*.ttgir")) + sorted((ROOT / "tests" / "corpus").glob("*.ttgir")) \
        + sorted((ROOT / "tests" / "versions").rglob("*.ttgir"))
    accesses = 0
    for path in files:
        for m in read_ttgir(path.read_text(), str(path)):
            whole, sliced = analyze(m), analyze(m, access_reads)
            for op in m.operations:
                if op.name in ACCESSES:
                    accesses += 1
                    assert repr(access_of(op, sliced)) == repr(access_of(op, whole)), (path.name, op.line)
    assert accesses > 1500


def _sliced_names(path):
    m = read_ttgir(path.read_text(), str(path))[0]
    ops = _scoped(m.operations, Analysis())
    children = {}
    for op in ops:
        if op.parent is not None:
            children.setdefault(op.parent, []).append(op)
    return len(ops), [ops[k].name for k in _needed(ops, children, [v for op in ops for v in access_reads(op)])]


def test_the_slice_leaves_out_what_no_address_or_mask_reads():
    """softmax: the row's values (the reductions, exp, the division) feed the store's value, not its address
    or mask, and are not visited; matmul: the loop's accumulator is not, its pointers (loop-carried) are."""
    total, names = _sliced_names(ROOT / "specs" / "kernels" / "softmax.cuda80.ttgir")
    assert (total, len(names)) == (28, 13)
    assert not {"tt.reduce", "math.exp", "arith.divf", "arith.subf"} & set(names)
    assert names.count("tt.addptr") == 4 and "tt.make_range" in names and "arith.cmpi" in names
    total, names = _sliced_names(ROOT / "specs" / "kernels" / "matmul.cuda80.ttgir")
    assert "tt.dot" not in names and "scf.for" in names and names.count("tt.addptr") >= 4 and len(names) < total
