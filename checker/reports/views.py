"""Text views of a layout, in the format of Triton's layout printer (triton-tensor-layout).

Distributed layouts:
- tensor view: the tensor in row-major order with ``[ ]`` nesting; each
  element lists every owner as ``T<lane + warp * lanes>:<register>`` (with a
  ``B<block>:`` prefix when there are several CTAs), joined by ``|``;
- hardware view: ``Warp<w>:`` then one line per register listing the
  coordinate ``(c0,c1,...)`` each lane holds.

Shared layouts:
- tensor view: position k of the nesting shows the coordinate stored at
  offset k as ``(r:c)``;
- hardware view: ``Offset: k -> (r,c)`` per block.

Tensor memory (TMEM, in-dims ``row``, ``col``, ``block``):
- tensor view: each element lists every TMEM cell that holds it as
  ``R<row>:C<col>`` (with a ``B<block>:`` prefix when there are several CTAs),
  joined by ``|``;
- hardware view: ``Row <r>:`` then the coordinate each column holds, one line per row.

Any other LinearLayout: one line per hardware index, ``in=v, ... -> (c0,c1,...)``.
"""

from __future__ import annotations

from ..errors import CheckerError
from ..layout import LinearLayout
from ..limits import MAX_SHOW_ELEMENTS


def _pad(value: int, limit: int) -> str:
    return str(value).rjust(len(str(limit)))


def _nest(cells: list[str], shape: list[int], sep: str) -> str:
    """Row-major nesting with brackets, one innermost row per line (Triton's layout)."""
    rank = len(shape)
    total = len(cells)
    out = []
    new_line = True
    for i, cell in enumerate(cells):
        idx = _delinearize(i, shape)
        opened = 0
        for j in range(rank - 1, -1, -1):
            if idx[j] != 0:
                break
            out.append("[")
            opened += 1
        if new_line:
            out.append(" " * (rank - opened))
            new_line = False
        out.append(cell)
        nxt = _delinearize((i + 1) % total, shape)
        for j in range(rank - 1, -1, -1):
            if nxt[j] != 0:
                break
            out.append("]")
        if nxt[-1] == 0:
            out.append("\n")
            new_line = True
        else:
            out.append(sep)
    return "".join(out)


def _delinearize(i: int, shape: list[int]) -> list[int]:
    idx = [0] * len(shape)
    for j in range(len(shape) - 1, -1, -1):
        idx[j] = i % shape[j]
        i //= shape[j]
    return idx


def _linearize(coord, shape) -> int:
    i = 0
    for c, s in zip(coord, shape):
        i = i * s + c
    return i


def distributed_view(L: LinearLayout, hardware: bool = False) -> str:
    shape = [s for _, s in L.out_dim_sizes]
    lanes, warps = L.in_dim_size("lane"), L.in_dim_size("warp")
    blocks, regs = L.in_dim_size("block"), L.in_dim_size("register")
    cells = [""] * L.total_out_size
    coords = {}
    for b in range(blocks):
        for w in range(warps):
            for t in range(lanes):
                for r in range(regs):
                    coord = tuple(L.apply({"register": r, "lane": t, "warp": w, "block": b}).values())
                    coords[(b, w, t, r)] = coord
                    thread = t + w * lanes
                    pad = (len(str(blocks)) - len(str(b)) + len(str(warps * lanes)) - len(str(thread))
                           + len(str(regs)) - len(str(r)))
                    owner = " " * pad + (f"B{b}:" if blocks > 1 else "") + f"T{thread}:{r}"
                    k = _linearize(coord, shape)
                    cells[k] = owner if not cells[k] else cells[k] + "|" + owner
    if not hardware:
        return _nest(cells, shape, ", ")
    lines = []
    for b in range(blocks):
        if blocks > 1:
            lines.append(f"Block{b}:")
        for w in range(warps):
            lines.append(f"Warp{w}:")
            for r in range(regs):
                lines.append(", ".join(
                    "(" + ",".join(_pad(c, s) for c, s in zip(coords[(b, w, t, r)], shape)) + ")"
                    for t in range(lanes)))
    return "\n".join(lines) + "\n"


def shared_view(L: LinearLayout, hardware: bool = False) -> str:
    shape = [s for _, s in L.out_dim_sizes]
    blocks = L.in_dim_size("block")
    per_block = L.total_out_size // blocks
    tensor_cells, hw_lines = [], []
    for b in range(blocks):
        if hardware:
            hw_lines.append(f"Block: {b}:")
        for k in range(per_block):
            coord = list(L.apply({"offset": k, "block": b}).values()) if k < L.in_dim_size("offset") else None
            if coord is None:
                break
            tensor_cells.append("(" + ":".join(_pad(c, s) for c, s in zip(coord, shape)) + ")")
            if hardware:
                hw_lines.append(f"Offset: {k} -> (" + ",".join(_pad(c, s) for c, s in zip(coord, shape)) + ")")
    if hardware:
        return "\n".join(hw_lines) + "\n"
    tensor_cells += [""] * (L.total_out_size - len(tensor_cells))
    return _nest(tensor_cells, shape, ",")


def tmem_view(L: LinearLayout, hardware: bool = False) -> str:
    """Tensor memory: rows and columns of TMEM (module docstring)."""
    shape = [s for _, s in L.out_dim_sizes]
    rows, cols = L.in_dim_size("row"), L.in_dim_size("col")
    blocks = L.in_dim_size("block") if L.has_in_dim("block") else 1
    cells = [""] * L.total_out_size
    lines = []
    for b in range(blocks):
        if hardware and blocks > 1:
            lines.append(f"Block{b}:")
        for r in range(rows):
            held = []
            for c in range(cols):
                point = {"row": r, "col": c}
                if L.has_in_dim("block"):
                    point["block"] = b
                coord = tuple(L.apply(point).values())
                held.append("(" + ",".join(_pad(x, s) for x, s in zip(coord, shape)) + ")")
                owner = ((f"B{_pad(b, blocks - 1)}:" if blocks > 1 else "")
                         + f"R{_pad(r, rows - 1)}:C{_pad(c, cols - 1)}")
                k = _linearize(coord, shape)
                cells[k] = owner if not cells[k] else cells[k] + "|" + owner
            if hardware:
                lines.append(f"Row {_pad(r, rows - 1)}: " + ", ".join(held))
    if hardware:
        return "\n".join(lines) + "\n"
    return _nest(cells, shape, ", ")


def generic_view(L: LinearLayout, hardware: bool = False) -> str:
    """Any LinearLayout: every hardware index and the coordinate it maps to (both views)."""
    shape = [s for _, s in L.out_dim_sizes]
    dims = [(d, n) for d, n in L.in_dim_sizes]
    lines = []
    for i in range(L.total_in_size):
        point, rest = {}, i
        for d, n in reversed(dims):
            point[d], rest = rest % n, rest // n
        coord = tuple(L.apply(point).values())
        lines.append(", ".join(f"{d}={point[d]}" for d, _ in dims) + " -> ("
                     + ",".join(_pad(x, s) for x, s in zip(coord, shape)) + ")")
    return "\n".join(lines) + "\n"


def check_size(L: LinearLayout, field: str = "shape") -> None:
    """Refuse (`CheckerError` naming `field`) a layout with more than `checker.limits.MAX_SHOW_ELEMENTS`
    elements or hardware indices: the views (and figures) print one cell for each."""
    for what, size in (("elements", L.total_out_size), ("hardware indices (registers x lanes x warps x ...)",
                                                          L.total_in_size)):
        if size > MAX_SHOW_ELEMENTS:
            raise CheckerError(f"the layout has {size} {what}; a view prints at most 2^20 = {MAX_SHOW_ELEMENTS} "
                               f"(the limit): give a smaller shape", field=field)


def layout_view(L: LinearLayout, hardware: bool = False) -> str:
    """The tensor view (who holds each element) or, with hardware, the hardware view, chosen by the
    layout's in-dims: shared (offset), tensor memory (row, col), distributed (register, lane, warp).
    Both enumerate every element and every hardware index: a layout with more than
    `checker.limits.MAX_SHOW_ELEMENTS` of either is refused (`check_size`) before anything is printed."""
    check_size(L)
    ins = set(L.in_dims)
    if "offset" in ins:
        return shared_view(L, hardware)
    if {"row", "col"} <= ins:
        return tmem_view(L, hardware)
    if {"register", "lane", "warp"} <= ins:
        return distributed_view(L, hardware)
    return generic_view(L, hardware)
