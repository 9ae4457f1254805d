"""Which shared-memory accesses of a TTGIR module meet in one buffer: the store / load pairs a shared layout must
serve both sides of (`checker.synthesis` finds the layout for a pair).

An access is a register <-> shared op with one register tensor and one shared memdesc (`access_of`): a store
(``ttg.local_alloc`` with a value, ``ttg.local_store``, an async copy into shared memory) or a load
(``ttg.local_load``). Two accesses of opposite directions pair when the allocation analysis says their memdescs may
point into the same allocation (`checker.ttgir.allocation.aliases`: views, loop-carried values, branches, selects),
or, outside a function, when both trace back through views to one value; and their memdesc types and register
shapes are equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import CheckerError
from ..hardware import hardware_for_target
from ..syntax.ttgir import layout_shape, layout_tensors, read_ttgir
from .allocation import Analysis, Function, _members, aliases

STORE_OPS = {"ttg.local_alloc": "auto", "ttg.local_store": "auto", "ttg.async_copy_global_to_local": "cp.async",
             "amdg.buffer_load_to_local": "direct_to_lds"}
LOAD_OPS = {"ttg.local_load": "auto"}
VIEW_OPS = ("ttg.memdesc_index",)           # a buffer of a multi-buffered allocation: the same layout


@dataclass(frozen=True)
class Access:
    """One side of a pair in a TTGIR module: the op, its register type, its access."""

    op: Any
    reg: Any                                    # TypeRef of the register tensor
    mem: Any                                    # TypeRef of the memdesc
    direction: str
    access: str


def _memdesc_value(op) -> str | None:
    if op.name == "ttg.local_alloc":
        return op.results[0] if op.results else None
    if op.name in ("ttg.async_copy_global_to_local", "amdg.buffer_load_to_local", "ttg.local_store"):
        return op.operands[1] if len(op.operands) > 1 else None
    if op.name == "ttg.local_load":
        return op.operands[0] if op.operands else None
    return None


def access_of(op) -> Access | None:
    """The access an op makes (None when it is not a register <-> shared access with one of each type)."""
    table = STORE_OPS if op.name in STORE_OPS else LOAD_OPS if op.name in LOAD_OPS else None
    if table is None:
        return None
    mems = [t for t in op.types if t.kind == "memdesc" and t.encoding is not None and t.encoding.is_shared]
    regs = layout_tensors(op.types)
    if len(mems) != 1 or not regs:
        return None
    return Access(op, regs[0], mems[0], "load" if op.name in LOAD_OPS else "store", table[op.name])


def _root(value: str | None, defs: dict) -> str | None:
    seen = 0
    while value is not None and seen < 64:
        op = defs.get(value)
        if op is None or op.name not in VIEW_OPS or not op.operands:
            return value
        value, seen = op.operands[0], seen + 1
    return value


def allocation_sets(operations: Sequence[Any], analysis: Analysis | None = None):
    """op -> the allocations (local_alloc indices) its memdesc may point into, by the allocation analysis'
    aliases (`checker.ttgir.allocation.aliases`: views, loop-carried values, branches, selects); op -> None
    outside every function. `analysis`: the module's (`checker.ttgir.allocation.Analysis`), whose functions
    and aliases are shared with the module's other readers, when the caller has one."""
    functions: list[tuple[Function, dict, dict[int, int]]] = []     # each with its aliases, id(op) -> its index
    for root, f in enumerate(operations):
        if f.name != "tt.func" or f.parent is not None:
            continue
        if analysis is not None:
            fn = analysis.function(operations, analysis.members(operations, root))
            alias = analysis.aliases(fn)
        else:
            fn = Function(operations, _members(operations, root))
            alias = aliases(fn)
        functions.append((fn, alias, {id(operations[i]): i for i in fn.members}))

    def allocations(op) -> frozenset | None:
        """op's set, made when asked (only the shared accesses are asked for theirs)."""
        got = next(((fn, alias, index[id(op)]) for fn, alias, index in functions if id(op) in index), None)
        if got is None:
            return None
        fn, alias, i = got
        if op.name == "ttg.local_alloc":
            v = fn.values(i)[0] if op.results else None
        else:
            k = {"ttg.local_load": 0}.get(op.name, 1)
            v = fn.operand_values[i][k] if len(fn.operand_values[i]) > k else None
        return frozenset(alias.get(v, ())) if v is not None else frozenset()
    return allocations


class BufferPairs:
    """The shared accesses of a module (`access_of`) and who pairs with whom, made once per module: `partners`
    of every access of a module costs one pass over its accesses each, not over its operations."""

    def __init__(self, operations: Sequence[Any], analysis: Analysis | None = None):
        self.defs = {r: o for o in operations for r in o.results}
        self.allocations = allocation_sets(operations, analysis)
        self.accesses = [acc for acc in map(access_of, operations) if acc is not None]
        # per access, what `partners` compares: its allocations and its memdesc traced back through views
        self._sides = [(acc, self.allocations(acc.op), _root(_memdesc_value(acc.op), self.defs))
                       for acc in self.accesses]
        self._side_of = {id(side[0].op): side for side in self._sides}

    def partners(self, op) -> list[Access]:
        """The accesses of the other direction to the same buffer (one the allocation analysis says both
        memdescs may point into: through views, loop-carried values, branches) with the same memdesc type:
        the local_store (local_alloc with a value, async copy) feeding a local_load, or the local_loads reading
        what a store wrote. Outside a function, the memdesc traced back through views."""
        side = self._side_of.get(id(op))         # an access of the module: its side, made once
        if side is None:
            me = access_of(op)
            if me is None:
                return []
            mine, root = self.allocations(op), _root(_memdesc_value(op), self.defs)
        else:
            me, mine, root = side
        if root is None and not mine:
            return []
        out = []
        for acc, theirs, their_root in self._sides:
            if acc.direction == me.direction or acc.op is op:
                continue
            if not ((mine and theirs and mine & theirs) or their_root == root):
                continue
            if acc.mem.encoding_text != me.mem.encoding_text or list(acc.reg.shape) != list(me.reg.shape):
                continue
            out.append(acc)
        return out


def pair_at(operations: Sequence[Any], line: int) -> tuple[Access, Access]:
    """(store, load) of the access on `line` and its partner (the first one in the module)."""
    ops = [o for o in operations if o.line == line and access_of(o) is not None]
    if not ops:
        found = [o.name for o in operations if o.line == line]
        if any(name in STORE_OPS or name in LOAD_OPS for name in found):
            raise CheckerError(f"the {found[0]} on line {line} has no register tensor and shared buffer whose "
                               f"layouts are known (an encoding alias it names is not defined?)", field="--line")
        raise CheckerError(f"line {line} has no local_store / local_load / local_alloc with a value / async copy"
                           + (f" (it has {', '.join(found)})" if found else ""), field="--line")
    me = access_of(ops[0])
    others = BufferPairs(operations).partners(ops[0])
    if not others:
        raise CheckerError(f"the {ops[0].name} on line {line} has no {'store' if me.direction == 'load' else 'load'}"
                           f" of the same buffer in this module", field="--line")
    other = others[0]
    return (me, other) if me.direction == "store" else (other, me)


@dataclass(frozen=True)
class Pair:
    """A store/load pair to synthesize for: the register encodings of both sides, the tensor shape, the
    element width, the instructions, the shared encoding in use (or None), the hardware preset's name
    (None: the caller's choice) and a line of text naming each side."""
    store: Any
    load: Any
    shape: list[int]
    bits: int
    store_access: str
    load_access: str
    current: Any
    hardware: str | None
    store_text: str
    load_text: str


def pair_in_ttgir(path: str, line: int) -> Pair:
    """The pair of the access on `line` of the TTGIR file at `path` (`pair_at`): the buffer's whole tensor,
    its encoding as the layout in use, the module's target as the hardware."""
    try:
        with open(path, encoding="utf-8") as f:
            modules = read_ttgir(f.read(), path)
    except (OSError, UnicodeDecodeError) as e:
        raise CheckerError(f"cannot read: {e}", file=path) from None
    module = next((m for m in modules if any(o.line == line for o in m.operations)), None)
    if module is None:
        raise CheckerError(f"no operation on line {line} of {path}", field="--line")
    try:
        store, load = pair_at(module.operations, line)
    except CheckerError as e:
        raise e.located(file=path, line=line) from None
    shape = list(store.reg.shape)
    if layout_shape(store.mem) != shape:
        dims = "x".join(map(str, layout_shape(store.mem))), "x".join(map(str, shape))
        raise CheckerError(f"the buffer ({dims[0]}) is not the tensor ({dims[1]}): a view of a larger allocation",
                           field="--line")
    target = hardware_for_target(module.target)
    return Pair(store.reg.encoding, load.reg.encoding, shape, store.mem.element_bits, store.access, load.access,
                store.mem.encoding, target.name if target else None,
                f"line {store.op.line} {store.op.name}: {store.reg.encoding_text}",
                f"line {load.op.line} {load.op.name}: {load.reg.encoding_text}")
