"""SVG figures of layouts, with a property's witness drawn on them.

``layout_figure(L)`` returns SVG text: pure, no dependencies, and the same
input always gives the same bytes (integer geometry, fixed palette, no
dates or random ids). There is no I/O here.

What a figure shows. The grid is the last two tensor dims (rows x columns);
rank 1 is drawn as 1 x N and rank > 2 as one 2-D slice, the one through the
first witness coordinate (else through 0), said so in a note. A grid larger
than 64 x 64 is down-sampled: every s-th row and t-th column is drawn
(s, t powers of two), said so in a note.

Owners of a cell. For a coordinate c the owners are the preimage

    L^-1(c) = x0 + ker L      (x0 any solution of L x = c over GF(2)),

listed in increasing flat input order (register in the low bits, as
Triton's printer loops). With ker L in reduced echelon form whose pivot is
each vector's highest bit, and x0 reduced to m (all pivot bits clear), the
k-th owner is m XOR the kernel vectors picked by the bits of k: increasing
in k. No enumeration of the whole input space is needed.

- distributed layout (in-dims register, lane, warp, block): an owner reads
  ``T<lane + warp * lanes>:<register>`` (``B<block>:`` in front when there
  are several CTAs); the cell is filled with its first owner's warp colour;
- shared layout (in-dims offset, block): an owner reads ``<offset> b<bank>``
  with ``bank = floor(offset * elem_bytes / 4) mod banks`` (4-byte banks),
  the cell filled with its bank's colour; for a padded layout (``linear``,
  ``intervals``, ``paddings``) the offset shown is the physical one,
  ``i + sum_k floor(i / interval_k) * padding_k``;
- any other layout (e.g. tensor memory row, col): the in-dim values joined
  by ``:``.

Witnesses. A witness is the dict a property reports. Cells are marked (a
thick red outline, listed in the legend) from what it names:
- a coordinate: a dict by out-dim (``{"dim0": 4, "dim1": 2}``, as
  ``checker.properties`` writes them), or a list of rank ints under a key
  ``coord``/``coordinate``/``element``/``missing`` or ending in
  ``_coord``/``_coordinate``, or a list of such lists under
  ``coords``/``coordinates``/``elements``;
- a hardware index: a dict by in-dim (``{"register": 3, "lane": 5, ...}``;
  components L lacks must be 0), marked where L sends it; one under a key
  ``<role>_index`` only on the figure of that role (``src_index`` on src);
- shared accesses: ``addresses`` (physical bytes) or ``offsets`` (values of
  the offset in-dim), marked where L stores them, paired with ``lanes`` when
  that list is as long;
- a bank conflict's ``accesses`` (dicts with ``register``, ``lane``, ``warp``,
  ``offset``, ``byte_address``): on a distributed layout the cell each
  (register, lane, warp) holds, on a shared layout the cell at ``offset``;
  with ``highlight_bank`` every drawn cell of a shared layout in the
  witness's ``bank`` gets a dashed orange outline;
- a misaligned access (``kind: misaligned_access``: ``lane``, ``register``,
  ``warp``, ``offset``, ``physical_offset``, ``byte_address``,
  ``vector_bytes``, and ``vector``, the access's elements as [register,
  lane]): on a distributed layout the cells of the vector's elements, on a
  shared layout the cells at ``offset``, ``offset + 1``, ... (one per
  element), the first one's line saying how far past the boundary it starts.
Nested dicts and lists are searched; the path of keys names each mark.
"""

from __future__ import annotations

import colorsys
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

from .. import f2
from ..layout import LinearLayout, log2
from ..padded import PaddedLayout, linear_part

MAX_CELLS = 64            # per side; larger grids are down-sampled
MAX_LINES = 4             # owner lines per cell; more owners read "+n"
FONT = 9                  # px; monospace glyphs are ~0.6 em wide
LINE = 10                 # px between text lines
WITNESS_RED = "#e00000"
# A qualitative palette (ColorBrewer Set3 without its salmon): light enough
# for black text, none of it close to the witness red.
WARP_PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69",
                "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f")
EMPTY_FILL = "#ffffff"
BANK_ORANGE = "#b35900"
BANK_WIDTH_BYTES = 4

_COORD_KEYS = {"coord", "coordinate", "element", "missing"}
_COORD_LIST_KEYS = {"coords", "coordinates", "elements"}
_HW_DIMS = ("register", "lane", "warp", "block", "offset")


def bank_colour(bank: int, banks: int) -> str:
    """Bank k of n: hue k/n of a light colour wheel."""
    r, g, b = colorsys.hls_to_rgb(bank / banks, 0.82, 0.65)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


# ------------------------------------------------------------------ owners

def owners(L: LinearLayout, coords: list[tuple[int, ...]], limit: int) -> tuple[list[list[int]], int]:
    """For each coordinate its first `limit` owners as flat inputs, increasing ([] where it has none),
    and how many owners every covered coordinate has (2^dim ker L); see the module docstring."""
    cols = L.columns
    kernel = _reduce_high(f2.nullspace(cols))
    targets = [L.pack_out(c) for c in coords]
    solutions = f2.solve(cols, targets)
    if solutions is None:      # L is not surjective: solve one by one
        solutions = [(f2.solve(cols, [t]) or [None])[0] for t in targets]
    combos = [0]
    for v in kernel:           # combos[k] = XOR of the kernel vectors picked by the bits of k
        if len(combos) >= limit:
            break
        combos += [c ^ v for c in combos]
    combos = combos[:limit]
    out = []
    for x in solutions:
        if x is None:
            out.append([])
            continue
        for v in kernel:
            if x >> (v.bit_length() - 1) & 1:
                x ^= v
        out.append([x ^ c for c in combos])
    return out, 1 << len(kernel)


def _reduce_high(vectors: list[int]) -> list[int]:
    """Reduced echelon basis of span(vectors), pivot = highest bit, ascending by pivot."""
    basis: dict[int, int] = {}
    for v in vectors:
        for lead in sorted(basis, reverse=True):
            if v >> lead & 1:
                v ^= basis[lead]
        if v:
            basis[v.bit_length() - 1] = v
    leads = sorted(basis)
    for i, b in enumerate(leads):
        for a in reversed(leads[:i]):
            if basis[b] >> a & 1:
                basis[b] ^= basis[a]
    return [basis[lead] for lead in leads]


# ------------------------------------------------------------------ labels

def _size(L: LinearLayout, d: str) -> int:
    return L.in_dim_size(d) if L.has_in_dim(d) else 1


def _family(L: LinearLayout) -> str:
    if L.has_in_dim("offset"):
        return "shared"
    if any(L.has_in_dim(d) for d in ("register", "lane", "warp")):
        return "distributed"
    return "other"


class _Labeler:
    """Owner text and cell fill for one layout family."""

    def __init__(self, layout, elem_bytes: int, banks: int):
        self.L = L = linear_part(layout)
        self.mem = layout if isinstance(layout, PaddedLayout) else None
        self.padding = tuple(zip(layout.intervals, layout.paddings)) if self.mem else ()
        self.elem_bytes, self.banks = elem_bytes, banks
        self.family = _family(L)
        self.blocks = _size(L, "block")
        self.lanes = _size(L, "lane")

    def physical(self, i: int) -> int:
        """Offset i after padding (`checker.padded.phys`)."""
        return self.mem.phys(i) if self.mem else i

    def unpadded(self, p: int) -> int | None:
        """The offset stored at physical offset p (None: a padding slot or past the buffer)."""
        if self.mem:
            return self.mem.unpadded(p)
        return p if p < self.L.in_dim_size("offset") else None

    def bank(self, offset: int) -> int:
        """The bank of (unpadded) offset."""
        return self.physical(offset) * self.elem_bytes // BANK_WIDTH_BYTES % self.banks

    def text(self, x: int) -> str:
        ins = self.L.split_in(x)
        prefix = f"B{ins.get('block', 0)}:" if self.blocks > 1 else ""
        if self.family == "distributed":
            return f"{prefix}T{ins.get('lane', 0) + ins.get('warp', 0) * self.lanes}:{ins.get('register', 0)}"
        if self.family == "shared":
            return f"{prefix}{self.physical(ins['offset'])} b{self.bank(ins['offset'])}"
        return ":".join(str(v) for v in ins.values())

    def fill(self, x: int) -> str:
        ins = self.L.split_in(x)
        if self.family == "distributed":
            return WARP_PALETTE[ins.get("warp", 0) % len(WARP_PALETTE)]
        if self.family == "shared":
            return bank_colour(self.bank(ins["offset"]), self.banks)
        return EMPTY_FILL

    def key(self) -> str:
        if self.family == "distributed":
            return (("B<block>:" if self.blocks > 1 else "") +
                    f"T<lane+warp*{self.lanes}>:<register>; fill = warp of the first owner")
        if self.family == "shared":
            padded = ("" if not self.padding else " (offset after padding: " +
                      ", ".join(f"+{p} every {i}" for i, p in self.padding) + ")")
            return (("B<block>:" if self.blocks > 1 else "") +
                    f"<offset> b<bank>, bank = offset*{self.elem_bytes}B/{BANK_WIDTH_BYTES}B mod {self.banks}; "
                    f"fill = bank" + padded)
        return ":".join(f"<{d}>" for d in self.L.in_dims)


# ---------------------------------------------------------------- witnesses

def witness_marks(L, witness: Mapping[str, Any] | None, *, role: str | None = None,
                  elem_bytes: int = 2, banks: int = 32) -> list[tuple[tuple[int, ...], str]]:
    """The (coordinate, description) pairs a witness names on L (module docstring), in witness order.

    `role` names L in the witness ("src", "dst"): an index under another role's key
    (``dst_index`` when role is "src") belongs to the other layout and is not drawn.
    """
    marks: list[tuple[tuple[int, ...], str]] = []
    if witness:
        _collect(_Labeler(L, elem_bytes, banks), witness, "", marks, role)
    return list(dict.fromkeys(marks))


def _is_coord(v: Any, rank: int) -> bool:
    return isinstance(v, (list, tuple)) and len(v) == rank and all(type(c) is int and c >= 0 for c in v)


def _dict_coord(L: LinearLayout, v: Any) -> tuple[int, ...] | None:
    """A coordinate written by dim ({"dim0": 4, "dim1": 2}), in L's out-dim order."""
    if not isinstance(v, Mapping) or not v or set(v) != set(L.out_dims):
        return None
    if not all(type(x) is int and x >= 0 for x in v.values()):
        return None
    return tuple(v[d] for d in L.out_dims)


def _hw_index(L: LinearLayout, v: Any) -> dict[str, int] | None:
    """A hardware index of L: components named by in-dim, the ones L lacks zero, at least one
    that is not 'block'."""
    if not isinstance(v, Mapping) or not v or not all(k in _HW_DIMS and type(x) is int for k, x in v.items()):
        return None
    if not any(L.has_in_dim(k) for k in v if k != "block"):
        return None
    for k, x in v.items():
        if not (0 <= x < L.in_dim_size(k) if L.has_in_dim(k) else x == 0):
            return None
    return {d: v.get(d, 0) for d in L.in_dims}


def _coord_of(L: LinearLayout, ins: Mapping[str, int]) -> tuple[int, ...]:
    return tuple(L.apply(ins).values())


def _collect(lab: _Labeler, node: Any, path: str, marks: list, role: str | None) -> None:
    L = lab.L
    if isinstance(node, Mapping) and node.get("kind") == "misaligned_access":
        marks.extend(_misaligned_marks(lab, node, path))
        return
    if isinstance(node, Mapping):
        c = _dict_coord(L, node)
        if c is not None:
            marks.append((c, path or "coordinate"))
            return
        hw = _hw_index(L, node)
        if hw is not None:
            parts = ", ".join(f"{k}={v}" for k, v in node.items())
            if lab.family == "distributed":
                parts = f"{lab.text(L.join_in(hw))} ({parts})"
            marks.append((_coord_of(L, hw), f"{path or 'index'}: {parts}"))
            return
        for key, value in node.items():
            sub = f"{path}.{key}" if path else str(key)
            k = str(key).lower()
            if role and k.endswith("_index") and k[:-len("_index")] != role.lower():
                continue
            if (k in _COORD_KEYS or k.endswith(("_coord", "_coordinate"))) and _is_coord(value, L.num_out_dims):
                marks.append((tuple(value), sub))
            elif k in _COORD_LIST_KEYS and isinstance(value, (list, tuple)) and value and all(
                    _is_coord(c, L.num_out_dims) for c in value):
                marks.extend((tuple(c), f"{sub}[{i}]") for i, c in enumerate(value))
            elif k in ("addresses", "offsets") and lab.family == "shared":
                marks.extend(_access_marks(lab, node, k))
            elif k == "accesses" and isinstance(value, (list, tuple)) and value and all(
                    isinstance(a, Mapping) for a in value):
                marks.extend(_bank_access_marks(lab, value, sub))
            elif isinstance(value, (Mapping, list, tuple)):
                _collect(lab, value, sub, marks, role)
    elif isinstance(node, (list, tuple)):
        for i, item in enumerate(node):
            if isinstance(item, (Mapping, list, tuple)):
                _collect(lab, item, f"{path}[{i}]", marks, role)


def _access_marks(lab: _Labeler, node: Mapping[str, Any], key: str) -> list:
    """Marks for shared accesses: node[key] lists physical byte addresses ("addresses") or
    values of the offset in-dim ("offsets", before padding)."""
    L, values = lab.L, node[key]
    if not isinstance(values, (list, tuple)) or not all(type(v) is int and v >= 0 for v in values):
        return []
    lanes = node.get("lanes")
    if not (isinstance(lanes, (list, tuple)) and len(lanes) == len(values)):
        lanes = None
    out = []
    for i, v in enumerate(values):
        offset = lab.unpadded(v // lab.elem_bytes) if key == "addresses" else v
        if offset is None or offset >= L.in_dim_size("offset"):
            continue
        physical = lab.physical(offset)
        what = f"offset {offset}" + (f" (slot {physical})" if lab.padding else "")
        if key == "addresses":
            what = f"byte {v} = offset {physical}"
        who = f"lane {lanes[i]}: " if lanes else ""
        out.append((_coord_of(L, {**{d: 0 for d in L.in_dims}, "offset": offset}),
                    f"{who}{what}, bank {lab.bank(offset)}"))
    return out


def _bank_access_marks(lab: _Labeler, accesses, path: str) -> list:
    """Marks for a bank conflict's accesses ({"register", "lane", "warp", "offset", "byte_address", ...}
    each): on a distributed layout the cell the (register, lane, warp) holds, on a shared layout the
    cell stored at `offset` (the offset in-dim's value)."""
    L, out = lab.L, []
    for i, a in enumerate(accesses):
        who = ", ".join(f"{k} {a[k]}" for k in ("lane", "register", "warp") if type(a.get(k)) is int)
        where = ""
        if type(a.get("byte_address")) is int:
            where = f"byte {a['byte_address']}"
        bank = a.get("bank")
        if lab.family == "shared" and type(a.get("offset")) is int and 0 <= a["offset"] < L.in_dim_size("offset"):
            bank = lab.bank(a["offset"]) if bank is None else bank
            coord = _coord_of(L, {**{d: 0 for d in L.in_dims}, "offset": a["offset"]})
        elif lab.family == "distributed":
            hw = _hw_index(L, {k: a[k] for k in ("register", "lane", "warp", "block") if type(a.get(k)) is int})
            if hw is None:
                continue
            coord = _coord_of(L, hw)
        else:
            continue
        text = ", ".join(t for t in (where, f"bank {bank}" if bank is not None else "") if t)
        out.append((coord, f"{path}[{i}]: {who}" + (f": {text}" if text else "")))
    return out


def _misaligned_marks(lab: _Labeler, witness: Mapping[str, Any], path: str) -> list:
    """Marks for a misaligned access (module docstring): its k-th element is register, lane
    ``vector[k]`` of the witness's warp, stored at offset ``offset + k``."""
    L, out = lab.L, []
    lane, register, warp, offset = (witness.get(k) for k in ("lane", "register", "warp", "offset"))
    if not all(type(v) is int for v in (lane, register, warp, offset)):
        return []
    vector = witness.get("vector") or [[register, lane]]
    byte, vb = witness.get("byte_address"), witness.get("vector_bytes")
    first = ""
    if type(byte) is int and type(vb) is int and vb > 0:
        first = f": byte {byte}, {byte % vb} past a {vb}-byte boundary"
    for k, element in enumerate(vector):
        if not (isinstance(element, (list, tuple)) and len(element) == 2 and all(type(v) is int for v in element)):
            continue
        rk, lk = element
        name = f"{path}.vector[{k}]" if path else f"vector[{k}]"
        if lab.family == "distributed":
            hw = _hw_index(L, {"register": rk, "lane": lk, "warp": warp})
            if hw is None:
                continue
            what = f"lane {lk}, register {rk}, warp {warp}"
        elif lab.family == "shared" and 0 <= offset + k < L.in_dim_size("offset"):
            hw = {**{d: 0 for d in L.in_dims}, "offset": offset + k}
            slot = witness.get("physical_offset")
            moved = k == 0 and type(slot) is int and slot != offset
            what = f"offset {offset + k}" + (f" (slot {slot})" if moved else "")
        else:
            continue
        out.append((_coord_of(L, hw), f"{name}: {what}" + (first if k == 0 else "")))
    return out


def _bank_cells(lab: _Labeler, grid, witness: Mapping[str, Any] | None) -> list[tuple[int, int]]:
    """The drawn cells of a shared layout stored in the witness's conflicting `bank` (first owner)."""
    bank = witness.get("bank") if isinstance(witness, Mapping) else None
    if lab.family != "shared" or type(bank) is not int:
        return []
    coords = grid.coords()
    found, _ = owners(lab.L, coords, 1)
    cells = []
    for c, own in zip(coords, found):
        if own and lab.bank(lab.L.split_in(own[0])["offset"]) == bank:
            cell = grid.cell_of(c)
            if cell is not None:
                cells.append(cell)
    return cells


# ------------------------------------------------------------------ drawing

class _Grid:
    """Which tensor elements are drawn where: the last two dims of the slice
    `lead` (leading coordinates), every `step[0]`-th row and `step[1]`-th column."""

    def __init__(self, shape: list[int], lead: tuple[int, ...], max_cells: int):
        self.rank = len(shape)
        self.rows, self.cols = (shape[-2], shape[-1]) if self.rank >= 2 else (1, shape[0])
        self.lead = lead
        self.step = (max(1, self.rows // max_cells), max(1, self.cols // max_cells))
        self.shape = (self.rows // self.step[0], self.cols // self.step[1])

    def notes(self) -> list[str]:
        out = []
        if self.rank > 2:
            out.append("slice " + ", ".join(f"dim{k}={v}" for k, v in enumerate(self.lead)) +
                       f" of dims dim{self.rank - 2} x dim{self.rank - 1}")
        if self.step != (1, 1):
            out.append(f"down-sampled: {_every(self.step[0])} row and {_every(self.step[1])} column "
                       f"of {self.rows} x {self.cols}")
        return out

    def coords(self) -> list[tuple[int, ...]]:
        """The drawn elements, row-major."""
        sr, sc = self.step
        if self.rank == 1:
            return [(j * sc,) for j in range(self.shape[1])]
        return [self.lead + (i * sr, j * sc) for i in range(self.shape[0]) for j in range(self.shape[1])]

    def cell_of(self, c: tuple[int, ...]) -> tuple[int, int] | None:
        """The drawn cell that stands for element c (None: not in the drawn slice or outside the tensor)."""
        r, k = (c[-2], c[-1]) if self.rank >= 2 else (0, c[0])
        if c[:-2] != self.lead or not (r < self.rows and k < self.cols):
            return None
        return r // self.step[0], k // self.step[1]


def _every(n: int) -> str:
    return "every" if n == 1 else f"every {n}{'nd' if n == 2 else 'th'}"


def _text_width(text: str, size: int) -> int:
    """Pixels a monospace line of `size` px needs (glyphs ~0.6 em), plus 8 px of margin."""
    return round(size * 0.6 * len(text)) + 8


def _cell_texts(L: LinearLayout, lab: _Labeler, coords: list) -> tuple[list[list[str]], list[str], list, int]:
    """Per drawn cell its owner lines (at most MAX_LINES, the last one "+n" when there are more) and fill;
    the owners of the cells and how many a covered cell has (`owners`)."""
    cell_owners, count = owners(L, coords, MAX_LINES)
    texts, fills = [], []
    for own in cell_owners:
        lines = [lab.text(x) for x in own]
        if count > MAX_LINES:
            lines = lines[:MAX_LINES - 1] + [f"+{count - (MAX_LINES - 1)}"]
        texts.append(lines or ["-"])
        fills.append(lab.fill(own[0]) if own else EMPTY_FILL)
    return texts, fills, cell_owners, count


def _labels(lab: _Labeler) -> tuple | None:
    """`Grid.labels` of a labeler."""
    if lab.mem is not None:
        return None
    fills = (WARP_PALETTE if lab.family == "distributed" else
             tuple(bank_colour(b, lab.banks) for b in range(lab.banks)) if lab.family == "shared" else (EMPTY_FILL,))
    return (lab.family, tuple((d, log2(n)) for d, n in lab.L.in_dim_sizes), lab.lanes, lab.blocks, lab.elem_bytes,
            lab.banks, fills)


@dataclass(frozen=True)
class Grid:
    """The bulk of a figure, as data: the axis labels, the cells and their owner lines of a grid of
    `rows` x `cols` cells of `cw` x `ch` px whose top-left corner is (`left`, `top`); row i stands
    for tensor row i * `step[0]`, column j for column j * `step[1]`. `cells` lists each cell's fill
    and its owner lines (escaped), row-major; `grid_svg` draws it.

    The same cells as numbers, from which the HTML page's script writes the same lines and fills
    (checker.reports.html): `owners`, each cell's first owner (a flat input; -1: none), `others`
    the XOR masks that give its owners from the first (the first mask 0; at most MAX_LINES),
    `count` the owners of a covered cell, and `labels` how an owner is written: (family, the
    in-dims' (name, bits) in flat order, lanes, blocks, elem_bytes, banks, the fills: warp colours
    for a distributed layout, bank colours for a shared one), None where the labels are not the
    in-dims' values alone (a padded layout's physical offsets)."""
    left: int
    top: int
    cw: int
    ch: int
    rows: int
    cols: int
    step: tuple[int, int]
    cells: tuple[tuple[str, tuple[str, ...]], ...]
    owners: tuple[int, ...]
    others: tuple[int, ...]
    count: int
    labels: tuple | None


@dataclass(frozen=True)
class Drawing:
    """A figure in three parts: `head` (the svg element's opening tag, the title and the notes), the
    `grid`, and `tail` (bank and witness outlines, the legends, the closing tag)."""
    head: str
    grid: Grid
    tail: str

    def svg(self) -> str:
        return self.head + grid_svg(self.grid) + self.tail


def grid_svg(g: Grid) -> str:
    """The grid's SVG lines: column labels, row labels, the cells group, the labels group."""
    sr, sc = g.step
    out = [f'<text x="{g.left + j * g.cw + g.cw // 2}" y="{g.top - 3}" text-anchor="middle" fill="#555">{j * sc}</text>'
           for j in range(g.cols)]
    out += [f'<text x="{g.left - 4}" y="{g.top + i * g.ch + g.ch // 2 + 3}" text-anchor="end" '
            f'fill="#555">{i * sr}</text>' for i in range(g.rows)]
    out.append('<g class="cells" stroke="#999" stroke-width="0.5">')
    for k, (fill, _) in enumerate(g.cells):
        i, j = divmod(k, g.cols)
        out.append(f'<rect x="{g.left + j * g.cw}" y="{g.top + i * g.ch}" width="{g.cw}" height="{g.ch}" '
                   f'fill="{fill}"/>')
    out.append('</g><g class="labels" text-anchor="middle">')
    for k, (_, lines) in enumerate(g.cells):
        i, j = divmod(k, g.cols)
        out += [f'<text x="{g.left + j * g.cw + g.cw // 2}" y="{g.top + i * g.ch + 12 + n * LINE}">{s}</text>'
                for n, s in enumerate(lines)]
    out.append("</g>")
    return "".join(line + "\n" for line in out)


def layout_figure(L, *, title: str | None = None, witness: Mapping[str, Any] | None = None,
                  role: str | None = None, elem_bytes: int = 2, banks: int = 32,
                  max_cells: int = MAX_CELLS, highlight_bank: bool = False) -> str:
    """An SVG drawing of L's tensor grid (see the module docstring), with witness cells outlined in red.

    `role` is L's name in the witness (see `witness_marks`); at most `max_cells` (a power of
    two) rows and columns are drawn. `highlight_bank`: on a shared layout, outline (dashed) every
    drawn cell in the witness's ``bank``.
    """
    return drawing(L, title=title, witness=witness, role=role, elem_bytes=elem_bytes, banks=banks,
                   max_cells=max_cells, highlight_bank=highlight_bank).svg()


def drawing(L, *, title: str | None = None, witness: Mapping[str, Any] | None = None,
            role: str | None = None, elem_bytes: int = 2, banks: int = 32,
            max_cells: int = MAX_CELLS, highlight_bank: bool = False) -> Drawing:
    """`layout_figure`'s drawing in its three parts (`Drawing`)."""
    lab = _Labeler(L, elem_bytes, banks)
    marks = witness_marks(L, witness, role=role, elem_bytes=elem_bytes, banks=banks)
    L = lab.L                       # a padded shared layout: its linear part, labelled after padding
    shape = [s for _, s in L.out_dim_sizes]
    lead = marks[0][0][:-2] if len(shape) > 2 and marks else (0,) * max(len(shape) - 2, 0)
    grid = _Grid(shape, lead, max_cells)
    notes = [f"tensor {'x'.join(map(str, shape))}, {lab.family} layout "
             f"({', '.join(f'{d} {n}' for d, n in L.in_dim_sizes)})", "cell: " + lab.key()] + grid.notes()
    bank_cells = _bank_cells(lab, grid, witness) if highlight_bank else []
    if bank_cells:
        notes.append(f"dashed outline: cells in bank {witness['bank']}, the conflicting bank")
    texts, fills, cell_owners, count = _cell_texts(L, lab, grid.coords())
    cw = max(28, _text_width(max((s for t in texts for s in t), key=len), FONT))
    ch = LINE * max(len(t) for t in texts) + 6

    head, y = [], 16
    if title:
        head.append(f'<text x="4" y="{y}" font-size="12" font-weight="bold">{escape(title)}</text>')
        y += 16
    for note in notes:
        head.append(f'<text x="4" y="{y}">{escape(note)}</text>')
        y += 12
    left, top = _text_width(str(grid.rows - 1), FONT) + 4, y + 12
    n_rows, n_cols = grid.shape
    covered = next((own for own in cell_owners if own), [0])
    cells = Grid(left, top, cw, ch, n_rows, n_cols, grid.step,
                 tuple((fill, tuple(escape(s) for s in lines)) for fill, lines in zip(fills, texts)),
                 tuple(own[0] if own else -1 for own in cell_owners), tuple(covered[0] ^ x for x in covered), count,
                 _labels(lab))

    out = []
    if bank_cells:
        out.append(f'<g class="bank" fill="none" stroke="{BANK_ORANGE}" stroke-width="1.5" stroke-dasharray="3 2">')
        out += [f'<rect x="{left + j * cw + 2}" y="{top + i * ch + 2}" width="{cw - 4}" height="{ch - 4}"/>'
                for i, j in bank_cells]
        out.append("</g>")
    drawn: dict[tuple[int, int], list[int]] = {}
    for n, (c, _) in enumerate(marks, 1):
        cell = grid.cell_of(c)
        if cell is not None:
            drawn.setdefault(cell, []).append(n)
    if drawn:
        out.append(f'<g class="witness" fill="none" stroke="{WITNESS_RED}" stroke-width="3">')
        out += [f'<rect x="{left + j * cw + 1}" y="{top + i * ch + 1}" width="{cw - 2}" height="{ch - 2}" '
                f'data-marks="{",".join(map(str, nums))}"/>' for (i, j), nums in sorted(drawn.items())]
        out.append("</g>")

    width = max([left + n_cols * cw + 8, 360, _text_width(title or "", 12)] + [_text_width(n, FONT) for n in notes])
    y = top + n_rows * ch + 18
    if lab.family == "distributed":
        y = _warp_legend(out, _size(L, "warp"), y, width)
    if marks:
        out.append(f'<g class="legend"><text x="4" y="{y}" font-weight="bold" fill="{WITNESS_RED}">witness</text>')
        for n, (c, what) in enumerate(marks, 1):
            y += 12 + (n == 1)
            where = "" if grid.cell_of(c) else (" (not in the drawn slice)" if c[:-2] != grid.lead
                                                else " (outside the tensor)")
            line = f"{n}. ({', '.join(map(str, c))}): {what}{where}"
            out.append(f'<text x="4" y="{y}">{escape(line)}</text>')
            width = max(width, _text_width(line, FONT))
        out.append("</g>")
        y += 6
    height = y + 4
    svg_tag = (f'<svg xmlns="http://www.w3.org/2000/svg" class="layout-figure" width="{width}" height="{height}" '
               f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans Mono, monospace" font-size="{FONT}">')
    return Drawing("".join(line + "\n" for line in [svg_tag] + head), cells,
                   "".join(line + "\n" for line in out) + "</svg>\n")


def _warp_legend(out: list[str], warps: int, y: int, width: int) -> int:
    """Append one swatch per warp colour (wrapping at `width`); return the next free y."""
    shown = min(warps, len(WARP_PALETTE))
    x = 4
    for w in range(shown):
        out.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{WARP_PALETTE[w]}" stroke="#999" '
                   f'stroke-width="0.5"/><text x="{x + 13}" y="{y}">warp {w}</text>')
        x += 62
        if x + 62 > width and w + 1 < shown:
            x, y = 4, y + 14
    if warps > shown:
        out.append(f'<text x="{x}" y="{y}">(colours repeat every {len(WARP_PALETTE)} warps)</text>')
    return y + 18
