"""`layoutcheck swizzle`'s text: a synthesized shared layout for a store / load pair (`checker.synthesis`), with
the figures before and after, the lower bound and the layout in Triton's and Gluon's syntax."""

from __future__ import annotations

from ..syntax.mlir_attr import print_attribute
from ..synthesis import Synthesis


def render(syn: Synthesis, store_text: str = "", load_text: str = "") -> str:
    """The `layoutcheck swizzle` text: the pair, the figures before and after, the bound, the layout."""
    lines = []
    if store_text:
        lines.append(f"store: {store_text}")
    if load_text:
        lines.append(f"load:  {load_text}")
    lines.append(f"{syn.bits}-bit elements, shape {'x'.join(map(str, syn.shape))}, "
                 f"{getattr(syn.hardware, 'name', syn.hardware)}"
                 + (f", {syn.family} layouts only" if syn.family != "any" else ""))
    if syn.current is not None:
        cur = syn.current
        lines.append(f"before: {print_attribute(cur.encoding)}")
        lines.append(f"  store {cur.store.describe()}")
        lines.append(f"  load  {cur.load.describe()}")
        lines.append(f"  total {cur.total} wavefronts")
    b = syn.best
    lines.append(f"after: {syn.attribute()}")
    lines.append(f"  store {b.store.describe()}")
    lines.append(f"  load  {b.load.describe()}")
    lines.append(f"  total {b.total} wavefronts")
    verdict = "proven minimal" if syn.proven else "not proven minimal"
    lines.append(f"minimum: {syn.lower_bound} wavefronts ({verdict}; {syn.argument}); each side alone: store "
                 f">= {syn.side_bounds[0]}, load >= {syn.side_bounds[1]}")
    if syn.current is not None:
        if syn.improves:
            lines.append(f"the IR's layout is not optimal: {syn.current.total} -> {b.total} wavefronts")
        else:
            lines.append("the IR's layout is optimal" if syn.current.total <= syn.lower_bound else
                         "no better layout found than the IR's")
        if syn.at_current is not None and syn.at_current_bound is not None:
            lines.append(f"at the IR layout's instructions: best {syn.at_current.total} wavefronts, "
                         f"bound {syn.at_current_bound}")
    lines.append(f"gluon: {syn.gluon()}")
    return "\n".join(lines)
