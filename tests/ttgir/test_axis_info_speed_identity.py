"""The AxisInfo analysis' fast paths (checker/ttgir/axis_info.py) give what the plain forms they stand for give:
`add_sub` written out against the BinaryOpVisitorImpl form (`_binary` with per-dim rules). (The fixed point's inline
visit of ordinary ops is compared with `_visit` on every op of every round in test_axis_info.py.)"""

import itertools

from checker.ttgir.axis_info import MAX_DIVISOR, AxisInfo, _binary, add_sub, gcd, times


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
