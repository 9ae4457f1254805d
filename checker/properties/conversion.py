"""conversion(src, dst, via=S): converting a tensor from layout src to layout dst.

Hardware indices are (register, lane, warp, block); a *thread* is
(lane, warp, block). Write F_level for the components a level keeps fixed:

    register: lane, warp, block    warp: warp, block    cta: block    cross_cta: none

(a) containment: every element dst needs exists in src:
    for all dst indices x, dst(x) is src(y) for some src index y.
(b) locality at a level: every dst index x finds its element in src at an
    index y that agrees with x on F_level (y_d = x_d for d in F_level; x_d
    must be a valid src value). The *level* of the conversion is the first of
    register, warp, cta, cross_cta that holds (cross_cta is (a) itself; each
    level implies the next). With x_F embedded into src, the set of such y
    images is src(x_F) + V_F, V_F = span(src bases of the other in-dims), so
    the level holds iff dst(x) + src(x_F) lies in V_F for every x: a linear
    condition, checked on each dst in-bit.
(c) Triton's own answer beside ours, from `triton_conversion`:
    ``details["triton_trivial"]`` (``is_convert_layout_trivial``) and
    ``details["triton_class"]`` (register / warp_shuffle / shared_memory).
(d) with ``via`` (a shared layout S: offset, block -> coordinates; padded
    allowed): the round trip src -> S -> dst delivers to every dst index its
    element: every element src writes has an offset (writes), every element
    dst reads has an offset (reads; it was written since src holds it by (a)
    and the writer of an element and its readers use the same offset), and no
    two offsets holding different elements share a slot (slots; see
    `checker.padded`).

(e) with ``via``, which CTA's buffer each element goes through. S's
    ``block`` component names the CTA whose shared memory holds a slot:
    slot (o, b) is in CTA b's buffer. The store src -> S is CTA-local when
    every slot (o, b) gets its element from a src index of CTA b: src holds
    S(o, b) at an index y with y_block = b (the CTA that owns a buffer is
    the one that writes it; claim ``store_cta``, holder src, needer S, block
    kept). The load S -> dst is CTA-local when every dst index x finds its
    element in its own CTA's buffer: S(o, x_block) = dst(x) for some o
    (claim ``load_cta``, holder S, needer dst, block kept). Both together:
    dst index x reads slot (o, x_block), which a src index of CTA x_block
    wrote, and no CTA touches another's shared memory. Otherwise the round
    trip needs distributed shared memory (a CTA writes into, or reads from,
    another CTA's buffer: CTA 1's elements stored in CTA 0's buffer), and
    the levels register, warp and cta fail with that witness (kind
    ``not_local``, kept ``block``; e.g. a dst index of block 1 whose element
    is held in shared at block 0 only), so ``details.level`` is
    ``cross_cta``. With a CTA-local round trip the level is the direct
    conversion's (b). ``details["round_trip"]`` has the two claims'
    statuses and the round trip's own level (``cta`` or ``cross_cta``).
    A slot no src index holds at all fails ``store_cta`` too (nobody can
    write it); a layout without a ``block`` dim lives in CTA 0.

The property holds when (a) and, with ``via``, (d) hold; (e) only moves the
level.

Engines, per sub-claim (each decided and replayed on its own):
F2: a dst in-bit e_j whose image (shifted by src(x_F)) falls outside the
span is the witness, with a functional w (w ⊥ span, w·target = 1) as
certificate. Z3: find x (and a src index y holding dst(x)) with
dst(x) + src(x_F) outside the span (`smt.outside_span`: with unit-vector
columns a set bit none of them sets, w that bit; else with w ⊥ the span and
w·(dst(x) + src(x_F)) = 1), or x_F outside src's range.
Replay: by `apply`: the element, the holder y, and the certificate.

Certificates of F2 ``holds`` (`checker.certificate`, ``combinations``): for
every sub-claim and level that holds, per dst in-bit e_j the src columns
outside F whose XOR is dst(e_j) + src(e_j on F); the folded result carries
``all_of`` them (contains, the level found, writes and reads, and, when the
level found is below cross_cta, store_cta and load_cta). The slots
claim has no certificate: phys is strictly increasing by its formula.
"""

from __future__ import annotations

from .. import f2, smt
from ..errors import LayoutError
from ..layout import LinearLayout
from ..padded import OFFSET, PaddedLayout
from ..verdict import DEFAULT_ENGINES, Engines
from . import certify, frame, triton_conversion
from .operands import linear, lowered, operand
from .result import Counterexample, EngineVerdict, Result, engines_for, run_engines
from .surjective import certifies_outside, separating_functional

NAME = "conversion"
HW = ("register", "lane", "warp", "block")
LEVELS = ("register", "warp", "cta", "cross_cta")
FIXED = {"register": ("lane", "warp", "block"), "warp": ("warp", "block"), "cta": ("block",), "cross_cta": ()}


def conversion(src: LinearLayout, dst: LinearLayout, *, via=None, same_encoding: bool = False,
               engines: Engines = DEFAULT_ENGINES, triton: bool = False) -> Result:
    for L, what in ((src, "src"), (dst, "dst")):
        extra = [d for d in L.in_dims if d not in HW]
        if extra:
            raise LayoutError(f"conversion: {what} has in-dims {extra}; distributed layouts have {list(HW)}")
    mem = None
    if via is None:
        src, dst = frame.align([src, dst])
    else:
        mem = PaddedLayout.of(via)
        src, dst, S = frame.align([src, dst, mem.linear])
        mem = PaddedLayout(S, mem.intervals, mem.paddings)
    subs: dict[str, Result] = {}
    subs["contains"] = _claim("contains", src, dst, (), engines, holder_dims=None)
    levels: dict[str, Result] = {}
    if subs["contains"].holds:
        for level in LEVELS[:-1]:
            levels[level] = _claim(f"local_{level}", src, dst, FIXED[level], engines, holder_dims=HW)
        levels["cross_cta"] = subs["contains"]
    trip: dict[str, Result] = {}
    if mem is not None:
        subs["writes"] = _claim("writes", mem.linear, src, (), engines, holder_dims=None,
                                roles=("shared", "src"))
        subs["reads"] = _claim("reads", mem.linear, dst, (), engines, holder_dims=None,
                               roles=("shared", "dst"))
        subs["slots"] = _slots(mem, engines)
        trip["store_cta"] = _claim("store_cta", src, mem.linear, ("block",), engines, holder_dims=HW,
                                   roles=("src", "shared"), held=False)
        trip["load_cta"] = _claim("load_cta", mem.linear, dst, ("block",), engines,
                                  holder_dims=(OFFSET, "block"), roles=("shared", "dst"), held=False)
        levels = {lv: (_through(r, trip) if lv != "cross_cta" else r) for lv, r in levels.items()}
    level = None  # the first level that holds, unless one before it is undecided
    for lv in LEVELS:
        if lv not in levels or levels[lv].status == "unknown":
            break
        if levels[lv].holds:
            level = lv
            break
    details = {"level": level, "levels": {lv: levels[lv].status for lv in levels},
               "witnesses": {lv: levels[lv].counterexample.to_dict() for lv in levels if levels[lv].fails},
               "claims": {k: r.status for k, r in subs.items()}}
    if trip:
        statuses = [r.status for r in trip.values()]
        details["round_trip"] = {**{k: r.status for k, r in trip.items()},
                                 "level": "cross_cta" if "fails" in statuses else (
                                     None if "unknown" in statuses else "cta")}
    if triton:                  # Triton's own classification (triton_view), only on request
        details.update(triton_view(src, dst, same_encoding))
    return _fold(subs, levels, engines, details, trip)


def judge(src, dst, shape=None, *, via=None, engines: Engines = DEFAULT_ENGINES, triton: bool = False) -> Result:
    """Two distributed layouts or encodings lowered at `shape` (and `via`, a shared one); identical encodings
    count as Triton's same-encoding case (trivial at once)."""
    same = not isinstance(src, LinearLayout) and src == dst
    return conversion(linear(src, shape, "src"), linear(dst, shape, "dst"),
                      via=None if via is None else lowered(via, shape, "via"), same_encoding=same,
                      engines=engines, triton=triton)


def decide(check, engines: Engines) -> Result:
    """A check (`checker.registry`): ``src``, ``dst`` and the optional ``via``, lowered at its ``layout_shape``
    or its shape; the parameter ``triton`` asks for Triton's own classification."""
    return judge(operand(check, "src"), operand(check, "dst"), check.shape, via=operand(check, "via"),
                 triton=bool(check.param("triton")), engines=engines)


def register_local(src: LinearLayout, dst: LinearLayout, *, engines: Engines = DEFAULT_ENGINES,
                   roles=("src", "dst")) -> Result:
    """(a) and (b) at the register level alone: every dst element is held by src in the same thread (lane, warp
    and block kept). Failing (a) answers first: dst needs an element src does not hold at all. `roles` names
    the two sides in witnesses and explanations."""
    src, dst = frame.align([src, dst])
    contains = _claim("contains", src, dst, (), engines, holder_dims=None, roles=roles)
    if not contains.holds:
        return contains
    return _claim("local_register", src, dst, FIXED["register"], engines, holder_dims=HW, roles=roles)


def _through(direct: Result, trip: dict[str, Result]) -> Result:
    """A level below cross_cta with ``via``: it holds when the direct conversion is local there and the round
    trip stays in each CTA's own buffer; otherwise the first failing (else undecided) of them answers."""
    parts = [direct, *trip.values()]
    for status in ("fails", "unknown"):
        for r in parts:
            if r.status == status:
                return r
    return direct


def triton_view(src: LinearLayout, dst: LinearLayout, same_encoding: bool) -> dict:
    """details["triton_trivial"], ["triton_class"], ["triton_lowering"] (what Triton's convert_layout
    lowering emits: `triton_conversion.lowering`), and how Triton got there."""
    if same_encoding:
        return {"triton_trivial": True, "triton_class": "register", "triton_minimal_dims": [],
                "triton_lowering": "none"}
    try:
        comp = triton_conversion.minimal_conversion(src, dst)
    except LayoutError as e:
        return {"triton_trivial": None, "triton_class": None, "triton_error": str(e)}
    cls, mixed = triton_conversion.classify(src, dst, comp)
    out = {"triton_trivial": triton_conversion.is_trivial(comp), "triton_class": cls,
           "triton_minimal_dims": list(comp.in_dims), "triton_lowering": triton_conversion.lowering(comp, cls)}
    if mixed is not None:
        out["triton_mixed_transpositions"] = mixed
    return out


# ------------------------------------------------------------ one sub-claim


def _claim(name: str, src: LinearLayout, dst: LinearLayout, fixed, engines, holder_dims,
           roles=("src", "dst"), held: bool = True) -> Result:
    """For every dst index x: dst(x) = src(y) for some src index y agreeing with x on `fixed`.
    `roles` names the holder and the needer in witnesses ("src"/"dst", or "shared" for via). With
    `holder_dims`, a witness names a src index holding the element elsewhere; `held` says every element is
    held somewhere (Z3 then searches for that index too when its witness is the one reported,
    `_z3_reports`; otherwise it is found by algebra when one exists)."""
    fixed = tuple(d for d in fixed if d in dst.in_dims or d in src.in_dims)
    search = held and _z3_reports(engines)
    return run_engines(f"{NAME}.{name}", engines,
                       {"f2": lambda: _f2(src, dst, fixed, holder_dims, roles),
                        "z3": lambda: _z3(name, src, dst, fixed, holder_dims, roles, search)}, certified=True)


def _z3_reports(engines: Engines) -> bool:
    """Whether the Z3 engine's witness is the one a Result reports: only when Z3 decides alone. With the F2
    engine beside it, F2's verdict comes first (`run_engines`: its witness and explanation), and a report
    keeps only the other engines' statuses, so Z3's holder y would be searched for nothing: the holder
    search adds y and src(y) = dst(x) to the obligation, which is satisfiable for every x once every
    element is held somewhere (`held`), so it changes no verdict, only which model Z3 gives (half the text,
    a fifth to a third of a level's solver time). Z3's witness then takes the algebraic holder, and still
    replays."""
    return engines.choice == "z3"


def _bits(L: LinearLayout, d: str) -> int:
    return L.in_dim_size_log2(d) if L.has_in_dim(d) else 0


def not_held(src: LinearLayout, dst: LinearLayout, fixed, x: dict, y: dict | None, w: int,
             roles=("src", "dst")) -> Counterexample:
    """dst index x whose element src does not hold at any index agreeing with x on `fixed`
    (kind not_local) or at all (kind missing_element); keys named by `roles`."""
    holder, needer = roles
    hk, nk = f"{holder}_index", f"{needer}_index"
    x = {d: x.get(d, 0) for d in dst.in_dims}
    elem = frame.image(dst, x)
    data = {nk: x, "element": elem, "certificate": w}
    if fixed:
        data["kept"] = list(fixed)
    if y is not None:
        data[hk] = {d: y.get(d, 0) for d in src.in_dims}
    others = [d for d in src.in_dims if d not in fixed]

    def recompute(dd) -> bool:
        xi = dd[nk]
        e = frame.image(dst, xi)
        if e is None or e != dd["element"]:
            return False
        if hk in dd and frame.image(src, dd[hk]) != e:
            return False
        if any(xi.get(d, 0) >> _bits(src, d) for d in fixed):
            return True  # that thread/warp/CTA does not exist in src
        base = frame.packed_image(src, {d: xi.get(d, 0) for d in fixed if src.has_in_dim(d)})
        target = src.pack_out([e[n] for n in src.out_dims]) ^ base
        return certifies_outside(src, target, dd["certificate"], others)

    return Counterexample("not_local" if fixed else "missing_element", data, recompute)


def _f2(src: LinearLayout, dst: LinearLayout, fixed, holder_dims, roles) -> EngineVerdict:
    span_dims = [d for d in src.in_dims if d not in fixed]
    span = [c for d in span_dims for c in frame.unit_images(src, [d])]
    spanned = f2.Span(span)         # one echelon basis for every dst bit's membership test
    for d, size in dst.in_dim_sizes:
        for i in range(size.bit_length() - 1):
            x = {d: 1 << i}
            col = frame.unit_image(dst, d, i)
            if d in fixed and i >= _bits(src, d):
                cx = not_held(src, dst, fixed, x, _holder(src, col, holder_dims), 0, roles)
                return EngineVerdict("f2", "fails", counterexample=cx,
                                     explanation=f"{roles[1]} {d}={1 << i} does not exist in {roles[0]} ({d} has "
                                                 f"{1 << _bits(src, d)} values there)")
            target = col ^ (frame.unit_image(src, d, i) if d in fixed else 0)
            if target not in spanned:
                w = separating_functional(span, target, src.total_out_size_log2)
                y = _holder(src, col, holder_dims)
                cx = not_held(src, dst, fixed, x, y, w, roles)
                return EngineVerdict("f2", "fails", counterexample=cx, explanation=_why(cx, fixed, roles))
    what = f"at an index with the same {', '.join(fixed)}" if fixed else "somewhere"
    return EngineVerdict("f2", "holds", explanation=f"every {roles[1]} basis is held in {roles[0]} {what}",
                         certificate=certify.conversion(src, dst, fixed))


def _holder(src: LinearLayout, packed: int, holder_dims) -> dict | None:
    """A src index holding `packed` (pivot solution), when asked and one exists."""
    if holder_dims is None:
        return None
    sol = f2.solve(src.columns, [packed])
    return None if sol is None else frame.index(src, sol[0])


def _why(cx: Counterexample, fixed, roles) -> str:
    holder, needer = roles
    d = cx.data
    head = f"{needer} index {frame.show(d[needer + '_index'])} needs {frame.show(d['element'])}"
    if not fixed:
        return head + f", which {holder} holds nowhere"
    where = f", held in {holder} at {frame.show(d[holder + '_index'])}" if holder + "_index" in d else ""
    return head + f"{where}, but at no {holder} index with the same {', '.join(fixed)}"


def obligation(name: str, src: LinearLayout, dst: LinearLayout, fixed, holder: bool) -> smt.Obligation:
    ob = smt.Obligation(f"{NAME}.{name}")
    x = ob.index(dst, "x")
    elem = ob.image(dst, x)
    base = ob.image(src, {d: x[d] for d in fixed if d in x})
    missing_thread = smt.any_of(*[smt.high_bits_set(x[d], _bits(src, d)) for d in fixed if d in x])
    ob.require(smt.any_of(missing_thread, smt.outside_span(ob, elem ^ base, _span(src, fixed))))
    if holder:
        y = ob.index(src, "y")
        ob.require(ob.image(src, y) == elem)
    return ob


def _span(src: LinearLayout, fixed) -> list[int]:
    """The columns of src's in-dims other than `fixed` (V_F of the module docstring)."""
    return [c for d in src.in_dims if d not in fixed for c in frame.unit_images(src, [d])]


def _z3(name: str, src: LinearLayout, dst: LinearLayout, fixed, holder_dims, roles,
        search_holder: bool = True) -> EngineVerdict:
    """The claim's obligation decided by Z3; with `holder_dims` and `search_holder`, Z3 also finds the
    holder y of the witness's element, else algebra does (`_holder`)."""
    search = holder_dims is not None and search_holder

    def on_sat(values):
        x = {d: values.get(f"x.{d}", 0) for d in dst.in_dims}
        if search:
            y = {d: values.get(f"y.{d}", 0) for d in src.in_dims}
        else:
            y = _holder(src, frame.packed_image(dst, x), holder_dims)
        base = frame.packed_image(src, {d: x[d] for d in fixed if src.has_in_dim(d)})   # None: x's thread is not in src
        w = 0 if base is None else smt.certificate_of(values, frame.packed_image(dst, x) ^ base, _span(src, fixed))
        cx = not_held(src, dst, fixed, x, y, w, roles)
        return cx, smt.solver_name() + " model: " + _why(cx, fixed, roles)

    return smt.verdict(obligation(name, src, dst, fixed, search).solve(),
                       holds="no dst index lacks its element there (unsat)", on_sat=on_sat)


# ------------------------------------------------------------------ slots


def slot_share(mem: PaddedLayout, a: dict, b: dict) -> Counterexample:
    S = mem.linear
    data = {"indices": [a, b], "slot": mem.phys(a.get(OFFSET, 0)), "elements": [frame.image(S, a), frame.image(S, b)]}

    def recompute(d) -> bool:
        p, q = d["indices"]
        ep, eq = frame.image(S, p), frame.image(S, q)
        same_cta = {k: v for k, v in p.items() if k != OFFSET} == {k: v for k, v in q.items() if k != OFFSET}
        return (ep is not None and eq is not None and ep != eq and same_cta
                and mem.phys(p.get(OFFSET, 0)) == mem.phys(q.get(OFFSET, 0)) == d["slot"])

    return Counterexample("shared_slot", data, recompute)


def _slots(mem: PaddedLayout, engines) -> Result:
    def f2_run() -> EngineVerdict:
        return EngineVerdict("f2", "holds", explanation="phys is strictly increasing: one slot per offset")

    def z3_run() -> EngineVerdict:
        S = mem.linear
        ob = smt.Obligation(f"{NAME}.slots")
        p, q = ob.index(S, "p"), ob.index(S, "q")
        ob.require(ob.image(S, p) != ob.image(S, q))
        for d in p:
            if d != OFFSET:
                ob.require(p[d] == q[d])
        if OFFSET in p:
            ob.require(smt.physical_offset(p[OFFSET], mem) == smt.physical_offset(q[OFFSET], mem))
        def on_sat(values):
            cx = slot_share(mem, {d: values.get(f"p.{d}", 0) for d in S.in_dims},
                            {d: values.get(f"q.{d}", 0) for d in S.in_dims})
            return cx, f"elements share slot {cx.data['slot']}"

        return smt.verdict(ob.solve(), holds="no two elements share a slot (unsat)", on_sat=on_sat)

    return run_engines(f"{NAME}.slots", engines, {"f2": f2_run, "z3": z3_run})


# ------------------------------------------------------------------ folding


def _fold(subs: dict[str, Result], levels: dict[str, Result], engines: Engines, details: dict,
          trip: dict[str, Result] | None = None) -> Result:
    """One Result: status from the sub-claims, per-engine verdicts summed over every check."""
    trip = trip or {}
    every = [*subs.values(), *trip.values(), *(r for lv, r in levels.items() if lv != "cross_cta")]
    order = list({id(r): r for r in every}.values())     # each sub-claim's time once
    verdicts = {}
    for name in engines_for(engines.choice):
        vs = [r.verdicts[name] for r in subs.values()]
        status = "fails" if any(v.status == "fails" for v in vs) else (
            "unknown" if any(v.status == "unknown" for v in vs) else "holds")
        cx = next((v.counterexample for v in vs if v.status == "fails"), None)
        cert = None
        if name == "f2" and status == "holds":
            local = details["level"] in FIXED and details["level"] != "cross_cta"
            used = list(subs.values()) + ([levels[details["level"]], *trip.values()] if local else [])
            parts = [r.verdicts["f2"].certificate for r in used if r.verdicts["f2"].certificate is not None]
            cert = certify.all_of(*parts) if parts else None
        verdicts[name] = EngineVerdict(name, status, sum(r.verdicts[name].seconds for r in order), cx,
                                       "; ".join(v.explanation for v in vs), certificate=cert)
    statuses = [r.status for r in subs.values()]
    status = "fails" if "fails" in statuses else ("unknown" if "unknown" in statuses else "holds")
    failing = next((r for r in subs.values() if r.status == "fails"), None)
    if failing is not None:
        explanation = f"{failing.property} fails: {failing.explanation}"
    elif status == "unknown":
        explanation = "; ".join(f"{r.property}: {r.explanation}" for r in subs.values() if r.status == "unknown")
    elif details["level"] is None:
        explanation = "every element dst needs is in src; the level is undecided (a solver gave up)"
    else:
        explanation = f"every element dst needs is in src; the conversion is local at level {details['level']}"
        if details["level"] != "register":
            lower = LEVELS[LEVELS.index(details["level"]) - 1]
            explanation += f" (not {lower}: {levels[lower].explanation})"
        if "writes" in subs:
            explanation += "; the round trip through shared memory delivers every element"
            if details.get("round_trip", {}).get("level") == "cross_cta":
                explanation += " through distributed shared memory (a CTA's buffer written or read by another CTA)"
    return Result(NAME, status, verdicts, failing.counterexample if failing is not None else None, explanation, details)
