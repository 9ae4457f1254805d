"""checker.synthesis: the synthesized shared layout of a store/load pair, its lower bound, the CLI and TTGIR."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import checker
from checker import synthesis as sy
from checker.cli import main
from checker.encodings import lower
from checker.errors import CheckerError
from checker.hardware import resolve
from checker.layout import LinearLayout
from checker.properties.bank_conflicts import bank_conflict_free
from checker.verdict import Engines

P = checker.parse_encoding
STORE = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
LOAD = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"
FLAT = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
SWZ = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"

# A tiny target whose whole search space can be enumerated: 4 lanes, 2 banks of 4 bytes.
TINY = resolve({"name": "tiny", "vendor": "custom", "warp_size": 4, "banks": 2, "bank_bytes": 4,
                "max_vector_bytes": 8, "smem_bytes_per_block": 65536,
                "phases": [{"direction": "both", "vector_bytes": [1, 2, 4], "groups": ["0-3"]},
                           {"direction": "both", "vector_bytes": [8], "groups": ["0-1", "2-3"]}]})


def _bases(n):
    """Every ordered basis of F2^n (every invertible shared layout of 2^n elements)."""
    def rec(seq, span):
        if len(seq) == n:
            yield tuple(seq)
            return
        for v in range(1, 1 << n):
            if v not in span:
                yield from rec(seq + [v], span | {x ^ v for x in span})
    yield from rec([], {0})


def _total(Rs, Rl, S, bits, hw):
    return (sy.side_figures(Rs, S, bits, "store", "auto", hw).wavefronts
            + sy.side_figures(Rl, S, bits, "load", "auto", hw).wavefronts)


def test_blocked_transpose_pair_proven_and_verified():
    shape = [64, 64]
    Rs, Rl = checker.lower(P(STORE), shape), checker.lower(P(LOAD), shape)
    syn = sy.synthesize(Rs, Rl, 16, "sm90", current=P(FLAT))
    assert syn.proven and syn.best.total == syn.lower_bound == 128
    assert syn.current.total == 1088 and syn.improves
    assert syn.side_bounds == (64, 64)
    syn.verify(R_store=Rs, R_load=Rl)                       # both engines, both sides
    for R, d in ((Rs, "store"), (Rl, "load")):
        res = bank_conflict_free(R, syn.best.layout, 16, direction=d, engines=Engines("both"))
        assert res.holds and res.details["wavefronts"] == res.details["min_wavefronts"]
    assert syn.at_current_bound == 192 and syn.at_current.total == 192


def test_printed_forms_parse_back():
    shape = [64, 64]
    syn = synthesize_encodings(P(STORE), P(LOAD), shape, 16, "sm90")
    enc = P(syn.attribute())
    assert checker.lower(enc, shape) == syn.best.layout
    spec = syn.gluon()
    assert spec.startswith(("gl.SharedLinearLayout(", "gl.SwizzledSharedLayout("))


def test_conflict_free_pair_gives_swizzled():
    """Same layout on both sides: a swizzled layout is optimal and is printed as one."""
    syn = synthesize_encodings(P(STORE), P(STORE), [64, 64], 16, "sm90")
    assert syn.proven and syn.best.encoding.kind == "swizzled_shared"
    assert syn.gluon().startswith("gl.SwizzledSharedLayout(vec=")


def _random_layout(rng, n, lanes, regs_max=2):
    """A random register layout of 2^n elements on `lanes` lanes: a random basis split into registers,
    lanes (one may broadcast) and warps."""
    basis = list(rng.choice(list(_bases_cache(n))))
    k = lanes.bit_length() - 1
    r = rng.randint(0, min(regs_max, n - 1))
    regs, rest = basis[:r], basis[r:]
    lane_b = rest[:k]
    while len(lane_b) < k:
        lane_b.append(0)
    warps = rest[k:]
    return regs, lane_b, warps


_CACHE = {}


def _bases_cache(n):
    if n not in _CACHE:
        _CACHE[n] = list(_bases(n))
    return _CACHE[n]


def _layout(regs, lanes, warps, sizes):
    def unpack(v):
        out = []
        for _, s in sizes:
            out.append(v & (s - 1))
            v >>= s.bit_length() - 1
        return tuple(out)
    return LinearLayout([("register", [unpack(v) for v in regs]), ("lane", [unpack(v) for v in lanes]),
                         ("warp", [unpack(v) for v in warps])], sizes)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1), st.sampled_from([8, 32, 64]))
def test_bound_is_a_true_lower_bound_exhaustively(seed, bits):
    """Every one of the 168 shared layouts of 8 elements costs at least the claimed minimum; where the
    result says proven, the best of them costs exactly that."""
    rng = random.Random(seed)
    sizes = (("dim0", 2), ("dim1", 4))
    Rs = _layout(*_random_layout(rng, 3, 4), sizes)
    Rl = _layout(*_random_layout(rng, 3, 4), sizes)
    best = min(_total(Rs, Rl, sy._shared_of(b, sizes), bits, TINY) for b in _bases(3))
    syn = sy.synthesize(Rs, Rl, bits, TINY)
    assert syn.rank_bound <= best == syn.best.total == syn.lower_bound and syn.proven
    syn.verify(R_store=Rs, R_load=Rl)
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(sy, "EXHAUSTIVE_BITS", 0)             # the search and the rank bound alone
    try:
        syn = sy.synthesize(Rs, Rl, bits, TINY)
    finally:
        monkeypatch.undo()
    assert syn.rank_bound == syn.lower_bound <= best <= syn.best.total
    if syn.proven:
        assert best == syn.best.total
    syn.verify(R_store=Rs, R_load=Rl)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1), st.sampled_from([16, 32]), st.sampled_from([[32, 32], [64, 32], [32, 64]]))
def test_random_blocked_pairs_never_worse_than_triton(seed, bits, shape):
    """Random blocked pairs on an H100: the result is never worse than Triton's usual choices (the
    unswizzled and the 8x8 swizzled layout), the bound holds against random layouts, and the result
    verifies with both engines on both sides."""
    rng = random.Random(seed)

    def blocked():
        spt = [1, 1]
        spt[rng.randint(0, 1)] = rng.choice([1, 2, 4, 8])
        tpw0 = rng.choice([1, 2, 4, 8, 16, 32])
        order = rng.choice([[1, 0], [0, 1]])
        wpc = rng.choice([[4, 1], [2, 2], [1, 4]])
        return P(f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = [{tpw0}, {32 // tpw0}], "
                 f"warpsPerCTA = {wpc}, order = {order}}}>")

    st_enc, ld_enc = blocked(), blocked()
    Rs, Rl = checker.lower(st_enc, shape), checker.lower(ld_enc, shape)
    syn = sy.synthesize(Rs, Rl, bits, "sm90", current=P(SWZ if shape[1] >= 64 or bits == 16 else FLAT))
    hw = resolve("sm90")
    for cur in (FLAT, SWZ):
        S = checker.lower(P(cur), shape)
        assert syn.best.total <= _total(Rs, Rl, S, bits, hw)
    n = sum(s.bit_length() - 1 for s in shape)
    sizes = Rs.out_dim_sizes
    for _ in range(6):
        basis, span = [], {0}
        while len(basis) < n:
            v = rng.randrange(1, 1 << n)
            if v not in span:
                basis.append(v)
                span |= {x ^ v for x in span}
        assert _total(Rs, Rl, sy._shared_of(basis, sizes), bits, hw) >= syn.lower_bound
    assert syn.lower_bound <= syn.best.total <= syn.current.total
    syn.verify(R_store=Rs, R_load=Rl)


def test_nvmma_and_padded_families():
    shape = [64, 64]
    syn = synthesize_encodings(P(STORE), P(LOAD), shape, 16, "sm90", family="nvmma")
    assert syn.best.encoding.kind == "nvmma_shared" and syn.proven
    syn = synthesize_encodings(P(STORE.replace("[4, 8]", "[8, 8]")), P(LOAD.replace("[8, 4]", "[8, 8]")), shape,
                                  16, "gfx950", family="padded", current=P(FLAT))
    assert syn.best.encoding.kind == "padded_shared" and syn.proven and syn.improves
    R = checker.lower(P(LOAD.replace("[8, 4]", "[8, 8]")), shape)
    res = bank_conflict_free(R, syn.best.layout, 16, direction="load", hardware="gfx950", engines=Engines("both"))
    assert res.details["wavefronts"] == syn.best.load.wavefronts


STAGED = f"""#blocked = {STORE}
#blocked1 = {LOAD}
#shared = {FLAT}
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", \
"ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%x: tensor<64x64xf16, #blocked>) {{
    %a = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttg.local_store %x, %a : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %y = ttg.local_load %a : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked1>
    tt.return
  }}
}}
"""


def test_ttgir_pair_gets_a_suggestion(tmp_path, capsys):
    path = tmp_path / "staged.ttgir"
    path.write_text(STAGED)
    report = checker.verify(str(path))
    checks = [c for c in report["checks"] if c["property"] == "bank_conflict_free"]
    load = next(c for c in checks if c["parameters"]["direction"] == "load")
    store = next(c for c in checks if c["parameters"]["direction"] == "store")
    assert store["passed"] and "suggestion" not in store["details"]
    sug = load["details"]["suggestion"]
    assert sug["before"] == 1088 and sug["wavefronts"] == 128 and sug["proven"]
    from checker.reports.text import finding
    assert "suggested shared layout #ttg." in finding(load)
    assert main(["swizzle", "--ttgir", str(path), "--line", "9", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["improves"] and out["before"]["wavefronts"] == 1088 and out["wavefronts"] == 128
    assert main(["swizzle", "--ttgir", str(path), "--line", "7"]) == 2     # the alloc has no value
    capsys.readouterr()
    path.write_text(STAGED + '#loc1 = loc("k.py":1:1)\n')   # Triton's output without ttng.two-ctas: <= 3.8
    assert main(["swizzle", "--ttgir", str(path), "--line", "9"]) == 0
    assert capsys.readouterr().err.startswith("layoutcheck: note: this text's syntax is from Triton <= 3.8")
    assert main(["swizzle", "--ttgir", str(path), "--line", "1"]) == 2     # bad input: its one line, no note
    assert capsys.readouterr().err == f"layoutcheck: error: field '--line': no operation on line 1 of {path}\n"
    path.write_text(STAGED.replace("#blocked1 = ", "#other = "))           # the load's layout alias is undefined
    assert main(["swizzle", "--ttgir", str(path), "--line", "9"]) == 2
    assert capsys.readouterr().err == (f"layoutcheck: error: {path}:9: field '--line': the ttg.local_load on line 9 "
                                       "has no register tensor and shared buffer whose layouts are known (an encoding "
                                       "alias it names is not defined?)\n")


def test_a_layout_for_another_targets_warps_is_one_line_naming_the_argument(capsys):
    """Fuzz (swizzle #524): an NVIDIA layout (32 lanes) with --hardware gfx950 (64) was an IndexError."""
    mma = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 32]}>"
    assert main(["swizzle", mma, STORE, "--shape", "64x64", "--dtype-bits", "16", "--hardware", "gfx950"]) == 2
    assert capsys.readouterr().err == ("layoutcheck: error: field '--hardware': the store layout has 32 lanes per "
                                       "warp, but gfx950 has 64: a layout for another target's warps\n")
    with pytest.raises(CheckerError) as e:
        synthesize_encodings(P(STORE), P(LOAD), [64, 64], 16, "gfx942")
    assert e.value.field == "hardware" and "the store layout has 32 lanes per warp" in e.value.message


def test_cli_text(capsys):
    assert main(["swizzle", STORE, LOAD, "--shape", "64x64", "--dtype-bits", "16", "--current", FLAT]) == 0
    out = capsys.readouterr().out
    assert "proven minimal" in out and "the IR's layout is not optimal: 1088 -> 128 wavefronts" in out
    assert "gluon: gl." in out
    assert main(["swizzle", STORE, "--shape", "64x64", "--dtype-bits", "16"]) == 2


def test_triton_accepts_the_printed_layouts():
    """Triton's parser and Gluon's constructor take the printed forms and lower them to the same layout."""
    pytest.importorskip("triton")
    from triton.experimental.gluon import language as gl

    from checker.properties.matches_triton import matches_triton
    shape = [64, 64]
    for load in (LOAD, STORE):
        syn = synthesize_encodings(P(STORE), P(load), shape, 16, "sm90")
        assert matches_triton(syn.best.encoding, shape).holds
        obj = eval(syn.gluon(), {"gl": gl})
        assert checker.lower(P(obj), shape) == syn.best.layout


def test_sub_byte_elements_are_refused_in_one_line():
    import subprocess
    import sys
    R = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    C = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"
    for extra in (["--shape", "64x64", "--dtype-bits", "4"], []):
        first = R if extra else f"tensor<64x64xi4, {R}>"
        done = subprocess.run([sys.executable, "-m", "checker", "swizzle", first, C, *extra], capture_output=True,
                              text=True)
        assert done.returncode == 2 and done.stderr == (
            "layoutcheck: error: argument --dtype-bits: a shared layout is synthesized for elements of 8 bits or more, "
            "got 4 (Triton packs sub-byte elements into bytes first: give the packed type's bits)\n")


def test_swizzle_follows_the_buffer_through_memdesc_index_and_the_loop(capsys):
    """Issue 27: the README's flagship warning (matmul.gfx942.ttgir:84) is a store into buffer 0 of a
    double-buffered allocation; its load (line 122) reads the buffer the loop carries. The allocation
    analysis' aliases pair them (the view-only trace found no load)."""
    from checker.cli import main
    assert main(["swizzle", "--ttgir", "specs/kernels/matmul.gfx942.ttgir", "--line", "84"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["store: line 84 ttg.local_store: #linear",
                       "load:  line 122 ttg.local_load: #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>"]
    assert "the IR's layout is not optimal: 256 -> 192 wavefronts" in out


def synthesize_encodings(store_enc, load_enc, shape, bits, hardware="sm90", **kw):
    """`synthesize` on the two encodings lowered at `shape`."""
    return sy.synthesize(lower(store_enc, list(shape)), lower(load_enc, list(shape)), bits, hardware, **kw)


@pytest.mark.parametrize("store, load, shape, bits, hw", [
    (STORE, LOAD, [64, 64], 16, "sm90"),
    (STORE, STORE, [64, 64], 16, "sm90"),
    (LOAD, STORE, [32, 64], 32, "sm80"),
    ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>",
     "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 4], order = [0, 1]}>",
     [64, 64], 16, "gfx942"),
])
def test_pruning_without_the_figures_at_the_current_layout_finds_the_same_layout(store, load, shape, bits, hw):
    """at_current=False (the suggestion of a TTGIR warning) drops candidates that cannot win or tie: the result
    is the full search's, and only the figures at the IR layout's instructions are left out."""
    Rs, Rl = checker.lower(P(store), shape), checker.lower(P(load), shape)
    full = sy.synthesize(Rs, Rl, bits, hw, current=P(FLAT))
    pruned = sy.synthesize(Rs, Rl, bits, hw, current=P(FLAT), at_current=False)
    assert (pruned.best.layout, pruned.best.total, pruned.best.source, pruned.lower_bound, pruned.proven) == \
        (full.best.layout, full.best.total, full.best.source, full.lower_bound, full.proven)
    assert pruned.attribute() == full.attribute() and pruned.current.total == full.current.total
    assert full.at_current is not None and pruned.at_current is None


AMD_PAIRS = [
    ("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
     "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>"),
    ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>",
     "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"),
    ("#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [16, 4], warpsPerCTA = [2, 2], order = [0, 1]}>",
     "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]}>"),
]


@pytest.mark.parametrize("hw", ["gfx942", "gfx950"])
@pytest.mark.parametrize("bits", [8, 16, 32, 64])
@pytest.mark.parametrize("store, load", AMD_PAIRS)
def test_vector_figures_are_the_hardware_models_figures(store, load, bits, hw):
    """`VectorFigures` (the lazy search's bound) equals `side_figures` wherever it applies (LLVM's merges of
    adjacent accesses included): every swizzled layout of the shape and random bijective layouts, on both
    sides."""
    shape = [64, 64]
    H = resolve(hw)
    Rs, Rl = sy._std(lower(P(store), shape), 2, "store"), sy._std(lower(P(load), shape), 2, "load")
    sides = [sy.VectorFigures(Rs, bits, "store", "auto", H), sy.VectorFigures(Rl, bits, "load", "auto", H)]
    layouts = [L for _, L in sy.swizzled_candidates(shape)]
    rng = random.Random(bits)
    sizes = Rs.out_dim_sizes
    for _ in range(20):
        enc = sy.SharedLinearEncoding(tuple(sy._shared_of(sy._random_basis(12, rng), sizes).in_bases("offset")))
        layouts.append(lower(enc, shape))
    compared = 0
    for L in layouts:
        for R, direction, got in zip((Rs, Rl), ("store", "load"), sy.vector_bounds(L, sides)):
            if got is None:
                continue
            try:
                want = sy.side_figures(R, L, bits, direction, "auto", H).wavefronts
            except CheckerError:
                continue                        # the eager search drops the candidate: any bound is valid
            assert got == want
            compared += 1
    assert compared > 0


def test_parity_checks_decide_membership_like_an_echelon_basis():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randrange(1, 10)
        vectors = [rng.randrange(0, 1 << n) for _ in range(rng.randrange(0, n + 2))]
        checks, span = sy._Checks(vectors, n), sy.f2.Span(vectors)
        assert all((w in checks) == (w in span) for w in range(1 << n))


@pytest.mark.parametrize("hw", ["gfx942", "gfx950", "sm80"])
@pytest.mark.parametrize("bits", [8, 16, 32])
@pytest.mark.parametrize("store, load", AMD_PAIRS[:2])
def test_lazy_search_finds_the_eager_searchs_layout(store, load, bits, hw):
    """at_current=False scores lazily (`_LazyPool`): the layout, figures, bound and notes are the eager
    search's (at_current=True, every candidate scored)."""
    shape = [64, 64]
    if resolve(hw).warp_size == 32:
        store, load = STORE, LOAD
    Rs, Rl = checker.lower(P(store), shape), checker.lower(P(load), shape)
    eager = sy.synthesize(Rs, Rl, bits, hw, current=P(SWZ))
    lazy = sy.synthesize(Rs, Rl, bits, hw, current=P(SWZ), at_current=False)
    want, got = eager.to_dict(), lazy.to_dict()
    want.pop("at_current_vectorization", None)
    assert got == want and lazy.notes == eager.notes
