"""checker.synthesis: the fast paths of the search give what the plain definitions give (the construction's
bit-sliced walk and its replayed attempts, its covering test, the lazy search's first bound)."""

import itertools
import random

import pytest

import checker
from checker import f2
from checker import synthesis as sy
from checker.errors import CheckerError
from checker.hardware import resolve

P = checker.parse_encoding
TINY = resolve({"name": "tiny", "vendor": "custom", "warp_size": 4, "banks": 2, "bank_bytes": 4,
                "max_vector_bytes": 8, "smem_bytes_per_block": 65536,
                "phases": [{"direction": "both", "vector_bytes": [1, 2, 4], "groups": ["0-3"]},
                           {"direction": "both", "vector_bytes": [8], "groups": ["0-1", "2-3"]}]})


def _plain_construct(columns, os_, ol, prefix, n, c, down, rng):
    """The construction as the module docstring states it, every membership by its own echelon basis."""
    k = len(prefix)
    others = [v for side in columns for cols in side for v in cols if v and v not in prefix]
    spanned = f2.Span(prefix)
    cbasis = [v for v in others if spanned.add(v)]
    for i in range(n):
        if len(prefix) + len(cbasis) == n:
            break
        if spanned.add(1 << i):
            cbasis.append(1 << i)
    if len(prefix) + len(cbasis) != n:
        return None
    uext = cbasis[:max(0, down - k)]
    u = list(prefix[:down]) + uext
    areas = []
    for (_, lanes, _), o in ((columns[0], os_), (columns[1], ol)):
        q = [prefix[i] for i in o.reg_positions if i < k] + [f2.combine(lanes, v) for v in o.phase_lanes]
        areas.append((q + u, o.phases))
    fixed = list(cbasis) + [a ^ b for a, b in itertools.combinations(cbasis, 2)][:64]
    g = []
    for _ in range(max(0, n - c)):
        best = best_inc = None
        draws = [rng.getrandbits(len(cbasis)) for _ in range(48)]
        for w in fixed + [f2.combine(cbasis, x) for x in draws]:
            if not w or f2.in_span(w, uext + g):
                continue
            inc = sum(wt for a, wt in areas if f2.in_span(w, a + g))
            if best_inc is None or inc < best_inc:
                best, best_inc = w, inc
                if inc == 0:
                    break
        if best is None:
            return None
        g.append(best)
    bank = []
    banked = f2.Span(uext + g)
    for w in cbasis:
        if len(uext) + len(bank) + len(g) == len(cbasis):
            break
        if banked.add(w):
            bank.append(w)
    order = list(prefix) + uext + bank + g
    return order if len(order) == n and f2.rank(order) == n else None


def _blocked(rng, warp_size, shape):
    spt = [1, 1]
    spt[rng.randrange(2)] = rng.choice([1, 2, 4, 8])
    tpw0 = rng.choice([1 << i for i in range(warp_size.bit_length())])
    wpc = rng.choice([[4, 1], [2, 2], [1, 4], [1, 1]])
    order = rng.choice([[1, 0], [0, 1]])
    return checker.lower(P(f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = [{tpw0}, {warp_size // tpw0}], "
                           f"warpsPerCTA = {wpc}, order = {order}}}>"), shape)


def _constructions(rng, hardware, bits_choices):
    """Random constructions of a search, forever: (store side, load side, prefix, n, c, down, columns, generator
    state) from two random blocked layouts of a random shape on one of `hardware`."""
    while True:
        hw = rng.choice(hardware)
        shape = rng.choice([[2, 4], [4, 4]] if hw is TINY else [[64, 64], [32, 64], [16, 32], [8, 16]])
        bits = rng.choice(bits_choices)
        try:
            Rs = sy._std(_blocked(rng, hw.warp_size, shape), 2, "store")
            Rl = sy._std(_blocked(rng, hw.warp_size, shape), 2, "load")
            opts_s = sy.side_options(Rs, bits, "store", "auto", hw)
            opts_l = sy.side_options(Rl, bits, "load", "auto", hw)
        except CheckerError:
            continue
        n = sum(s.bit_length() - 1 for s in shape)
        columns = (sy._side_columns(Rs), sy._side_columns(Rl))
        a, b = rng.choice(opts_s), rng.choice(opts_l)
        c, down = rng.randrange(n + 1), rng.randrange(3)
        for prefix in sy._fill(a.prefix, b.prefix, limit=2):
            yield a, b, prefix, n, c, down, columns, rng.getrandbits(32)


@pytest.mark.parametrize("seed", range(6))
def test_construction_is_the_plain_greedy_walk(seed):
    """`_Construction.order` (coordinates, bit-sliced fixed vectors, draws skipped where no draw can win) gives
    the plain walk's basis and leaves the generator in the same state, attempt after attempt."""
    rng = random.Random(seed)
    hardware = [resolve("gfx942"), resolve("gfx950"), resolve("sm90"), TINY]
    for a, b, prefix, n, c, down, columns, state in itertools.islice(_constructions(rng, hardware, [8, 16, 32, 64]),
                                                                     20):
        plain, fast = random.Random(state), random.Random(state)
        construction = sy._Construction(a, b, prefix, n, c, down, columns)
        for _ in range(2):
            assert construction.order(fast) == _plain_construct(columns, a, b, prefix, n, c, down, plain)
            assert fast.getstate() == plain.getstate()


@pytest.mark.parametrize("seed", range(4))
def test_replayed_attempts_are_fresh_walks(seed):
    """Attempt after attempt on one construction (replayed where the first read no draw) gives the order a fresh
    construction's walk gives from the same generator state, and leaves the generator in the same state."""
    rng = random.Random(seed)
    replayed = 0
    hardware = [resolve("gfx942"), resolve("gfx950"), resolve("sm90")]
    for a, b, prefix, n, c, down, columns, state in itertools.islice(_constructions(rng, hardware, [8, 16, 32]), 15):
        plain, fast = random.Random(state), random.Random(state)
        kept = sy._Construction(a, b, prefix, n, c, down, columns)
        for _ in range(4):
            replayed += kept.replay is not None
            fresh = sy._Construction(a, b, prefix, n, c, down, columns)
            assert kept.order(fast) == fresh.order(plain)
            assert fast.getstate() == plain.getstate()
    assert replayed > 0


def test_covered_counts_like_listing_every_vector():
    rng = random.Random(3)
    for _ in range(300):
        m = rng.randrange(0, 7)
        unit = [rng.getrandbits(9) for _ in range(m)]
        masks = [rng.getrandbits(9) for _ in range(rng.randrange(1, 4))]
        union = {x for x in range(1 << m) for mask in masks if not sy._xor_rows(unit, x) & mask}
        assert sy._covered(unit, masks) == (len(union) == 1 << m)


@pytest.mark.parametrize("hw", ["gfx942", "gfx950"])
@pytest.mark.parametrize("bits", [8, 16, 64])
def test_least_is_a_lower_bound_on_the_vector_figures(hw, bits):
    """The lazy search's first bound (`VectorFigures.least`, S's columns alone) never exceeds the figure."""
    shape = [64, 64]
    H = resolve(hw)
    store = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    load = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [16, 4], warpsPerCTA = [2, 2], order = [0, 1]}>"
    Rs, Rl = sy._std(checker.lower(P(store), shape), 2, "store"), sy._std(checker.lower(P(load), shape), 2, "load")
    sides = [sy.VectorFigures(Rs, bits, "store", "auto", H), sy.VectorFigures(Rl, bits, "load", "auto", H)]
    rng = random.Random(bits)
    layouts = [L for _, L in sy.swizzled_candidates(shape)]
    layouts += [checker.lower(sy._linear_encoding(sy._random_basis(12, rng), Rs.out_dim_sizes), shape)
                for _ in range(20)]
    compared = 0
    for L in layouts:
        inverse = sy._OffsetInverse.of(L, sides)
        for R, direction, least, figure in zip((Rs, Rl), ("store", "load"), inverse.least(), inverse.bounds()):
            if least is None:
                continue
            if figure is None:      # LLVM may merge adjacent accesses (smem.plan._merged): the full model's figure
                try:
                    figure = sy.side_figures(R, L, bits, direction, "auto", H).wavefronts
                except CheckerError:
                    continue
            assert least <= figure
            compared += 1
    assert compared > 0
