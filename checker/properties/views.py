"""view_consistent(S, V, kind): a shared-memory view addresses the buffer it was taken from.

Setting. A view operation gives an existing shared buffer a new type without
moving data: ``ttg.memdesc_trans`` (permute the dims), ``ttg.memdesc_reshape``
(re-shape the same elements in row-major order). Triton lowers every access
through the view with the view type's own layout V: (offset, block) -> view
coordinate, on the buffer's base address. S is the layout the buffer was
written with. The view is consistent when each offset holds, read through V,
the element S put there, moved by the view's coordinate map T:

    V(o, b) = T(S(o, b))        for every offset o and block b

with T linear over GF(2) (a permutation of coordinate bits):

    trans, order p:   t_i = s_{p[i]}                 (view dim i is source dim p[i])
    reshape:          the row-major linear index of s, re-split by the view's shape
    index, subslice:  t = s  (one buffer of a multi-buffered allocation, or a sub-tile: the view
                      type keeps the allocation's shape and must keep its layout, since Triton
                      addresses it with the allocation's layout plus a constant offset)

so T∘S is a LinearLayout and the property is `equivalent(V, T∘S)`: both
engines, the witness an index whose two images differ, replayed. For a padded
buffer the padding (intervals and paddings) must be the same on both sides,
and the linear components are compared as above (the padding acts on offsets,
which T does not touch).

Failing means that an access through the view reads or writes other
addresses than the allocation's layout says: either the IR pairs a view type
with a layout that is not its source's (Triton's verifier infers the result
encoding, so Triton's own IR should never fail), or layoutcheck lowers one of
the two differently from Triton (a bug either way, with the witness).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import CheckerError
from ..layout import LinearLayout
from ..padded import PaddedLayout
from ..verdict import DEFAULT_ENGINES, Engines
from .equivalence import equivalent
from .operands import lowered
from .result import Result

KINDS = ("trans", "reshape", "index", "subslice")
NAME = "view_consistent"


def view_consistent(source, view, kind: str, *, order: Sequence[int] | None = None,
                    engines: Engines = DEFAULT_ENGINES) -> Result:
    """Is the view's layout the source's layout moved by the view's coordinate map (module docstring)?"""
    if kind not in KINDS:
        raise CheckerError(f"must be one of {list(KINDS)}, got {kind!r}", field="kind")
    src, dst = PaddedLayout.of(source), PaddedLayout.of(view)
    if (src.intervals, src.paddings) != (dst.intervals, dst.paddings):
        return Result(NAME, "fails", {}, None,
                      f"the view's padding {list(zip(dst.intervals, dst.paddings))} is not the buffer's "
                      f"{list(zip(src.intervals, src.paddings))}", {"kind": kind})
    sizes = [s for _, s in dst.linear.out_dim_sizes]
    moved = (transposed(src.linear, order) if kind == "trans" else reshaped(src.linear, sizes)
             if kind == "reshape" else src.linear)
    r = equivalent(dst.linear, moved, engines=engines)
    details = {"kind": kind, **({"order": list(order)} if kind == "trans" else {}),
               "source_shape": [s for _, s in src.linear.out_dim_sizes], "view_shape": sizes}
    explanation = (f"every offset of the {kind} view addresses the element the buffer's layout puts there"
                   if r.status == "holds" else
                   f"the {kind} view's layout differs from the buffer's layout moved by the view: " + r.explanation)
    return Result(NAME, r.status, r.verdicts, r.counterexample, explanation, details)


def transposed(S: LinearLayout, order: Sequence[int] | None) -> LinearLayout:
    """T∘S for memdesc_trans: out dim i of the result is S's out dim order[i]."""
    names = list(S.out_dims)
    if order is None or sorted(order) != list(range(len(names))):
        raise CheckerError(f"must be a permutation of 0..{len(names) - 1}, got {order}", field="order")
    moved = S.transpose_outs([names[p] for p in order])
    return LinearLayout([(d, moved.in_bases(d)) for d in moved.in_dims],
                        [(names[i], size) for i, (_, size) in enumerate(moved.out_dim_sizes)])


def reshaped(S: LinearLayout, shape: Sequence[int]) -> LinearLayout:
    """T∘S for memdesc_reshape: the same row-major linear index, re-split by `shape`."""
    names = list(S.out_dims)
    new = [f"dim{i}" for i in range(len(shape))]
    minor_first = S.transpose_outs(names[::-1])
    flat = minor_first.reshape_outs(list(zip(new[::-1], shape[::-1])))
    return flat.transpose_outs(new)


def judge(source, view, source_shape=None, view_shape=None, *, kind: str, order: Sequence[int] | None = None,
          engines: Engines = DEFAULT_ENGINES) -> Result:
    """The buffer and the view as layouts, or encodings lowered at their shapes."""
    return view_consistent(lowered(source, source_shape, "source"), lowered(view, view_shape, "view"), kind,
                           order=order, engines=engines)


def decide(check, engines: Engines) -> Result:
    """A TTGIR check (`checker.registry`): operands ``source`` (at param ``source_shape``) and ``view`` (at the
    check's shape), params ``kind`` and ``order``."""
    p = check.param
    return judge(check.operand("source"), check.operand("view"), p("source_shape"), check.shape, kind=p("kind"),
                 order=p("order"), engines=engines)
