"""The certificate checker (checker/certificate.py) on random layouts: every F2 holds carries a
certificate that checks, tampered certificates are rejected, and a certificate that checks proves
its claim (brute force), also when the claim is changed under it."""

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker import certificate as cert_mod
from checker import f2
from checker.certificate import Certificate, CertificateError
from checker.errors import InternalError
from checker.layout import LinearLayout
from checker.properties import certify
from checker.properties.conversion import conversion
from checker.properties.equivalence import equivalent
from checker.properties.injective import injective, injective_up_to_broadcast
from checker.properties.invertible import invertible
from checker.properties.result import EngineVerdict, run_engines
from checker.properties.surjective import surjective
from checker.verdict import Engines

from .properties import brute
from .properties.strategies import basis, layouts, pairs

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _checks(c: Certificate) -> bool:
    return c.holds()


def _f2_cert(r):
    v = r.verdicts["f2"]
    assert (v.certificate is not None) == (v.status == "holds"), r
    return v.certificate


# ------------------------------------------------------------------ every F2 holds carries one that checks


@SETTINGS
@given(layouts())
def test_single_layout_certificates(L):
    for prop, ref in ((injective, brute.injective), (injective_up_to_broadcast, brute.injective_up_to_broadcast),
                      (surjective, brute.surjective)):
        r = prop(L, engines=Engines("f2"))
        c = _f2_cert(r)
        assert r.holds == ref(L)
        if c is not None:
            assert _checks(c)
            assert set(c.to_dict()) >= {"kind"}


@SETTINGS
@given(pairs(same_sizes=True))
def test_equivalence_and_conversion_certificates(pair):
    A, B = pair
    r = equivalent(A, B, engines=Engines("f2"))
    if _f2_cert(r) is not None:
        assert brute.equivalent(A, B) and _checks(r.verdicts["f2"].certificate)
    r = equivalent(A, A, engines=Engines("f2"))
    assert r.holds and _checks(_f2_cert(r))
    r = conversion(A, B, engines=Engines("f2"))
    if r.holds:
        c = r.verdicts["f2"].certificate
        assert c is not None and c.kind == "all_of" and _checks(c)
        assert brute.contains(A, B)


@SETTINGS
@given(layouts(in_dims=("offset", "block"), bits={"offset": 4, "block": 1}))
def test_invertible_certificates(S):
    r = invertible(S, engines=Engines("f2"))
    if r.holds:
        c = r.verdicts["f2"].certificate
        assert c.kind == "all_of" and [p.kind for p in c.proof["parts"]] == ["left_inverse", "spanning"]
        assert _checks(c)


# ------------------------------------------------------------------ tampering is rejected


def _square(n: int, data) -> LinearLayout:
    """A random invertible n x n layout: a permutation of the unit vectors XORed along a triangle."""
    perm = data.draw(st.permutations(range(n)))
    cols = [1 << p for p in perm]
    for i in range(1, n):
        for j in range(i):
            if data.draw(st.booleans()):
                cols[i] ^= cols[j]
    return LinearLayout([("register", [(c,) for c in cols])], [("dim0", 1 << n)])


@SETTINGS
@given(st.integers(2, 7), st.data())
def test_tampered_left_inverse_rejected(n, data):
    L = _square(n, data)
    c = _f2_cert(injective(L, engines=Engines("f2")))
    assert _checks(c)
    rows = c.proof["inverse"]
    i, k = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    how = data.draw(st.sampled_from(["swap", "add", "drop", "flip"]))
    bad = list(rows)
    if how == "swap":
        bad[i], bad[k] = bad[k], bad[i]
    elif how == "add":
        bad[i] ^= bad[k]                       # (M·A)[i][k] becomes 1
    elif how == "drop":
        bad = bad[:-1]
    else:
        bad[i] ^= 1 << data.draw(st.integers(0, n - 1))   # every out bit is used by a square layout
    with pytest.raises(CertificateError):
        Certificate(c.kind, c.claim, {"inverse": bad}).verify()


@SETTINGS
@given(st.integers(2, 7), st.data())
def test_tampered_spanning_rejected(n, data):
    L = _square(n, data)
    c = _f2_cert(surjective(L, engines=Engines("f2")))
    combos = list(c.proof["combinations"])
    i, k = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    combos[i] ^= combos[k]                   # now gives e_i + e_k
    with pytest.raises(CertificateError):
        Certificate(c.kind, c.claim, {"combinations": combos}).verify()


@SETTINGS
@given(layouts(), st.data())
def test_changed_claim_checks_only_when_true(L, data):
    """Soundness: keep the proof, change one basis of the claim; whenever the checker still accepts,
    the changed layout has the property (brute force)."""
    d = data.draw(st.sampled_from(list(L.in_dims)))
    if not L.in_bases(d):
        return
    i = data.draw(st.integers(0, L.in_dim_size_log2(d) - 1))
    bases = {n: list(L.in_bases(n)) for n in L.in_dims}
    bases[d][i] = data.draw(basis(list(L.out_dim_sizes)))
    M = LinearLayout(list(bases.items()), list(L.out_dim_sizes))
    for prop, ref, kind in ((injective, brute.injective, "left_inverse"),
                            (injective_up_to_broadcast, brute.injective_up_to_broadcast, "left_inverse"),
                            (surjective, brute.surjective, "spanning")):
        c = _f2_cert(prop(L, engines=Engines("f2")))
        if c is None:
            continue
        claim = copy.deepcopy(c.claim)
        claim["layout"] = M.to_dict()
        if Certificate(kind, claim, c.proof).holds():
            assert ref(M), (prop.__name__, str(M))


def test_equal_columns_rejects_a_changed_basis():
    A = LinearLayout([("register", [(1,), (2,)]), ("lane", [(4,)])], [("dim0", 8)])
    B = LinearLayout([("register", [(1,), (2,)]), ("lane", [(6,)])], [("dim0", 8)])
    assert certify.equivalent(A, A).holds()
    with pytest.raises(CertificateError, match="lane"):
        certify.equivalent(A, B).verify()
    with pytest.raises(CertificateError, match="in-dims"):
        Certificate("equal_columns", {"layouts": [A.to_dict(), {"bases": {"register": [[1]]},
                                                                "out_dims": {"dim0": 8}}]}).verify()


def test_combinations_reject_a_wrong_combination():
    src = LinearLayout([("register", [(1,), (2,)]), ("lane", [(4,)])], [("dim0", 8)])
    dst = LinearLayout([("register", [(2,)]), ("lane", [(5,)])], [("dim0", 8)])
    c = certify.conversion(src, dst, ())
    assert c.holds()
    bad = list(c.proof["combinations"])
    bad[1] ^= 1
    assert not Certificate(c.kind, c.claim, {"combinations": bad}).holds()
    with pytest.raises(CertificateError, match="does not exist in src"):
        certify_fixed = Certificate("combinations", {**c.claim, "fixed": ["lane"],
                                                     "src": {"bases": {"register": [[2]], "lane": []},
                                                             "out_dims": {"dim0": 8}}},
                                    {"combinations": [1, 0]})
        certify_fixed.verify()


def test_malformed_and_unknown_certificates():
    with pytest.raises(CertificateError, match="unknown"):
        Certificate("magic", {}, {}).verify()
    with pytest.raises(CertificateError, match="malformed"):
        Certificate("left_inverse", {}, {}).verify()
    with pytest.raises(CertificateError, match="non-negative"):
        Certificate("left_inverse", {"layout": {"bases": {"register": [[1]]}, "out_dims": {"d": 2}}},
                    {"inverse": [-1]}).verify()


# ------------------------------------------------------------------ rank computations


vectors = st.lists(st.integers(0, 255), min_size=0, max_size=8)


@SETTINGS
@given(vectors, st.integers(0, 255))
def test_rank_preserved_checks_iff_the_ranks_agree(words, mask):
    c = certify.rank_preserved(words, mask)
    same = f2.rank(words) == f2.rank([w & mask for w in words])
    assert c.holds() == same


@SETTINGS
@given(vectors, vectors)
def test_trivial_intersection_checks_iff_the_spans_meet_in_zero(first, second):
    c = certify.trivial_intersection(first, second)
    assert c.holds() == (not f2.span_intersection(first, second))


@SETTINGS
@given(st.lists(st.integers(1, 255), min_size=2, max_size=8), st.data())
def test_tampered_echelon_rejected(words, data):
    c = certify.rank_preserved(words, 255)
    T, E = list(c.proof["transform"]), list(c.proof["echelon"])
    i = data.draw(st.integers(0, len(words) - 1))
    how = data.draw(st.sampled_from(["upper", "unit", "echelon"]))
    if how == "upper" and i + 1 < len(words):
        T[i] |= 1 << (i + 1)                 # not lower triangular
    elif how == "unit":
        T[i] &= ~(1 << i)                    # not unit: maybe singular
    else:
        E[i] ^= 1                            # no longer T times the vectors
    if (T, E) == (c.proof["transform"], c.proof["echelon"]):
        return
    with pytest.raises(CertificateError):
        Certificate(c.kind, c.claim, {"transform": T, "echelon": E}).verify()


# ------------------------------------------------------------------ run_engines checks them


def test_run_engines_rejects_a_bad_or_missing_certificate():
    L = LinearLayout([("register", [(1,), (2,)])], [("dim0", 4)])
    good = certify.injective(L, False)
    bad = Certificate(good.kind, good.claim, {"inverse": [good.proof["inverse"][1], good.proof["inverse"][0]]})
    run = {"f2": lambda: EngineVerdict("f2", "holds", certificate=bad)}
    with pytest.raises(InternalError, match="certificate does not check"):
        run_engines("injective", Engines("f2"), run)
    with pytest.raises(InternalError, match="carries no certificate"):
        run_engines("injective", Engines("f2"), {"f2": lambda: EngineVerdict("f2", "holds")}, certified=True)
    assert run_engines("injective", Engines("f2"), {"f2": lambda: EngineVerdict("f2", "holds", certificate=good)},
                  certified=True).holds


def test_a_tampered_engine_certificate_is_an_internal_error(monkeypatch):
    honest = certify.injective

    def broken(L, skip_zero, dropped=None):
        c = honest(L, skip_zero, dropped)
        rows = c.proof["inverse"]
        return Certificate(c.kind, c.claim, {"inverse": rows[1:] + rows[:1]})

    monkeypatch.setattr(certify, "injective", broken)
    L = LinearLayout([("register", [(1,), (2,)]), ("lane", [(4,)])], [("dim0", 8)])
    with pytest.raises(InternalError, match="certificate does not check"):
        injective(L, engines=Engines("f2"))


def test_result_to_dict_carries_the_certificate_compactly():
    L = LinearLayout([("register", [(2,), (1,)])], [("dim0", 4)])
    d = injective(L, engines=Engines("f2")).to_dict()
    assert d["verdicts"]["f2"]["certificate"] == {"kind": "left_inverse", "inverse": [2, 1]}
    d = surjective(L, engines=Engines("f2")).to_dict()
    assert d["verdicts"]["f2"]["certificate"] == {"kind": "spanning", "combinations": [2, 1]}


def test_checker_imports_no_engine():
    """checker/certificate.py reads plain data: it imports nothing from layoutcheck."""
    import ast
    import inspect
    tree = ast.parse(inspect.getsource(cert_mod))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "." for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert all(n in ("__future__", "collections.abc", "dataclasses", "typing") for n in names), names
