"""Where SSA values are live, as Triton's allocation analysis sees a function: MLIR's ``Liveness`` over the
control-flow graph ``convert-scf-to-cf`` makes of it (the pass runs before shared memory is allocated).

**The graph.** Structured control flow is flattened the way MLIR's SCFToControlFlow lowers it, blocks in
this order:

- ``scf.for``: the block so far ends with ``br ^cond(lb, inits)``; ``^cond(iv, iter_args)`` compares and
  branches to the body or past the loop; the body's blocks follow, the last one ending with the step and
  ``br ^cond(iv + step, yielded)``; the loop's results *are* ``^cond``'s arguments;
- ``scf.if``: ``cond_br`` to the then blocks, then the else blocks (or straight on), both ending with
  ``br ^continue(yielded)``; the results are ``^continue``'s arguments;
- ``scf.while``: ``br ^before(inits)``; the before blocks end with ``scf.condition``'s ``cond_br`` to
  ``^after(args)`` or on; the after blocks end with ``br ^before(yielded)``; the results are the values
  the condition forwards.

Regions of other operations (a function, ``ttg.warp_specialize``'s default region and partitions, a
reduction's combiner) stay regions: each is flattened on its own.

**Blocks already written** (a region with ``cf.br`` / ``cf.cond_br``, as ``scf-to-cf`` or the inliner leave
it): each block ends at its terminator; MLIR's printer labels the blocks of a region ``^bb1``, ``^bb2``, ...
in order (the entry block is ``^bb0``), and the reader gives a block's arguments to the operation holding
the region, after its own, block by block. A branch names its successors and the operands it passes to each;
those operands fill the successor's arguments in order (`branches`). A region whose labels are not in that
form, or which branches otherwise (``cf.switch``), cannot be read (`unread`).

**Liveness** (MLIR's ``Liveness``): per block, ``def`` = its arguments and every result inside it (nested
regions included), ``use`` = every operand inside it not defined there, ``out`` = its values used in another
block of its region, and ``in = use ∪ (out − def)``, ``out ∪= in`` of each successor, to the fixed point
(solved for one value at a time, when its range is asked: `ControlFlow._live_blocks`). ``resolve(v)`` walks
the blocks that define or directly use v, and the successors where v is live-in: in each, from its definition
(or the block's first operation when live-in or a block argument) to the block's last operation when
live-out, else to the last operation that is or holds a user of v.

**Numbering.** Operations are numbered in post-order (an operation after the regions it holds, blocks in
order), the operations the lowering adds (branches, the loop's compare and step) included. A value's live
range is ``[smallest id, largest id + 1)`` over the operations ``resolve`` gives.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ..syntax.ttgir import Operation, _group_end

STRUCTURED = ("scf.for", "scf.if", "scf.while")
_LOWERED = frozenset(STRUCTURED + ("scf.yield", "scf.condition"))     # what `_emit` does not simply place
BRANCHES = ("cf.br", "cf.cond_br")
TERMINATORS = BRANCHES + ("tt.return", "cf.switch", "llvm.return", "llvm.unreachable")
Value = tuple     # ("result", op index, name) | ("argument", op index, region, name)
Item = int        # an operation: its index in Module.operations; one the lowering adds: a negative number


@dataclass
class Block:
    region: tuple                                   # (index of the op holding the region, region)
    arguments: list[Value] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    successors: list[int] = field(default_factory=list)


class ControlFlow:
    """One function as convert-scf-to-cf leaves it, with MLIR's liveness over it (module docstring).

    `ops`: the module's operations; `members`: the function's (its tt.func first); `operands(i)`: operation
    i's operands resolved to Values (None for names defined elsewhere)."""

    def __init__(self, ops: Sequence[Operation], members: Sequence[int], operands, argument_region):
        self.ops = ops
        self.root = members[0]
        self.children: dict[tuple, list[int]] = {}
        children = self.children
        for i in members[1:]:
            op = ops[i]
            block = (op.parent, op.region)
            if block in children:
                children[block].append(i)
            else:
                children[block] = [i]
        self._regions: dict[int, list[int]] = {}       # op -> its regions that hold operations
        for p, r in self.children:
            self._regions.setdefault(p, []).append(r)
        self._argument_region = argument_region
        self.blocks: list[Block] = []
        self.region_blocks: dict[tuple, list[int]] = {}
        self.block_of: dict[Item, int] = {}
        self.uses: dict[Item, Sequence[Value | None]] = {}     # its operands (None: defined outside the function)
        self.rename: dict[Value, Value] = {}
        self.defined_in: dict[Value, int] = {}     # each block argument's block (a result's: its operation's)
        self._synthetic = 0
        self._operands = operands
        self.branches: dict[int, list[tuple[list[Value], list[Value | None]]]] = {}
        self.unread: str | None = None
        self._flatten_region((self.root, 0))
        self._number()

    # ---------------------------------------------------------------- building the graph

    def _new_block(self, region: tuple, arguments: Sequence[Value] = ()) -> int:
        self.blocks.append(Block(region, list(arguments)))
        b = len(self.blocks) - 1
        self.region_blocks.setdefault(region, []).append(b)
        for v in arguments:
            self.defined_in[v] = b
        return b

    def _place(self, block: int, item: Item, uses: Sequence[Value | None] = ()) -> None:
        self.blocks[block].items.append(item)
        self.block_of[item] = block
        self.uses[item] = uses

    def _added(self, block: int, uses: Sequence[Value | None] = ()) -> Item:
        """An operation the lowering adds (a branch, the loop's compare or step) at the end of `block`."""
        self._synthetic += 1
        self._place(block, -self._synthetic, uses)
        return -self._synthetic

    def _arguments(self, i: int, region: int) -> list[Value]:
        op = self.ops[i]
        return [("argument", i, region, a) for k, a in enumerate(op.arguments)
                if self._argument_region(op, k) == region]

    def _results(self, i: int) -> list[Value]:
        return [("result", i, r) for r in self.ops[i].results]

    def _flatten_region(self, region: tuple) -> None:
        items = self.children.get(region, [])
        written = self._written_blocks(region, items)
        if written is None:
            entry = self._new_block(region, self._arguments(*region))
            self._emit(items, entry, region)
            return
        firsts, lasts = [], []
        for arguments, body in written:
            firsts.append(self._new_block(region, arguments))
            lasts.append(self._emit(body, firsts[-1], region))
        for last, (_, body) in zip(lasts, written):
            for target, _ in self.branches.get(body[-1] if body else -1, ()):
                self.blocks[last].successors.append(firsts[target])
        for i, targets in self.branches.items():      # successors as block indices -> their arguments
            if i in items:
                self.branches[i] = [(written[t][0], passed) for t, passed in targets]

    def _written_blocks(self, region: tuple, items: list[int]):
        """The blocks of a region written with branches (module docstring): [(arguments, operations)], and
        each branch's [(successor, operands passed)] in `branches`; None for a region of one block."""
        if not any(self.ops[i].name in BRANCHES for i in items):
            return None
        bodies: list[list[int]] = [[]]
        for i in items:
            bodies[-1].append(i)
            if self.ops[i].name in TERMINATORS:
                bodies.append([])
        if not bodies[-1]:
            bodies.pop()
        arguments = self._arguments(*region)
        wanted: dict[int, int] = {}
        for i in items:
            op = self.ops[i]
            if op.name == "cf.switch":
                self.unread = f"line {op.line}: cf.switch"
            if op.name not in BRANCHES:
                continue
            operands, targets = list(self._operands(i)), []
            k = 1 if op.name == "cf.cond_br" else 0
            for m in re.finditer(r"\^([\w$.-]+)", op.text):
                label = re.fullmatch(r"bb(\d+)", m.group(1))
                if label is None or not 0 < int(label.group(1)) < len(bodies):
                    self.unread = f"line {op.line}: the successor ^{m.group(1)} is not a block label as MLIR prints it"
                    return None
                n = 0
                if m.end() < len(op.text) and op.text[m.end()] == "(":
                    inside = op.text[m.end() + 1:_group_end(op.text, m.end()) - 1].split(":")[0]
                    n = len(re.findall(r"%[\w$.#-]+", inside))
                target = int(label.group(1))
                if wanted.setdefault(target, n) != n:
                    self.unread = f"line {op.line}: ^bb{target} is passed {n} operands here, {wanted[target]} elsewhere"
                    return None
                targets.append((target, operands[k:k + n]))
                k += n
            self.branches[i] = targets
        counts = [wanted.get(b, 0) for b in range(1, len(bodies))]
        own = len(arguments) - sum(counts)
        if own < 0:
            self.unread = f"line {self.ops[items[0]].line}: the blocks' arguments do not add up"
            return None
        out, k = [(arguments[:own], bodies[0])], own
        for n, body in zip(counts, bodies[1:]):
            out.append((arguments[k:k + n], body))
            k += n
        return out

    def _emit(self, items: list[int], cur: int, region: tuple) -> int:
        """Append the operations of one structured block to `cur` (and the blocks after it); returns the
        block the code after them continues in."""
        ops, operands_of, regions = self.ops, self._operands, self._regions
        for i in items:
            op = ops[i]
            name = op.name
            operands = operands_of(i)
            if name in _LOWERED:
                if name == "scf.for":
                    cur = self._for(i, operands, cur, region)
                    continue
                if name == "scf.if":
                    cur = self._if(i, operands, cur, region)
                    continue
                if name == "scf.while":
                    cur = self._while(i, operands, cur, region)
                    continue
                if op.parent is not None and ops[op.parent].name in STRUCTURED:
                    continue                # the enclosing structured op's lowering places its branch
            self._place(cur, i, operands)
            held = regions.get(i)
            if held:
                for r in sorted(held):
                    self._flatten_region((i, r))
        return cur

    def _terminator(self, i: int, region: int) -> tuple[int | None, list]:
        """The structured region's yield / condition (op index) and its operands, if written."""
        body = self.children.get((i, region), [])
        if body and self.ops[body[-1]].name in ("scf.yield", "scf.condition"):
            return body[-1], self._operands(body[-1])
        return None, []

    def _branch(self, block: int, term: int | None, uses, successors: list[int]) -> None:
        """The block's terminator: the structured yield itself where written (the branch replaces it in
        place), else an added branch."""
        if term is not None:
            self._place(block, term, uses)
        else:
            self._added(block, uses)
        self.blocks[block].successors += successors

    def _for(self, i: int, operands, cur: int, region) -> int:
        lb, ub, step = (operands + [None, None, None])[:3]
        inits = operands[3:]
        cond = self._new_block(region, self._arguments(i, 0))
        for old, new in zip(self._results(i), self._arguments(i, 0)[1:]):
            self.rename[old] = new
        self._added(cur, [lb] + inits)
        self.blocks[cur].successors.append(cond)
        iv = self._arguments(i, 0)[:1]
        self._added(cond, iv + [ub])                         # arith.cmpi slt iv, ub
        body = self._new_block(region)
        last = self._emit(self.children.get((i, 0), []), body, region)
        self._added(last, iv + [step])                       # arith.addi iv, step
        term, yielded = self._terminator(i, 0)
        self._branch(last, term, yielded, [cond])
        after = self._new_block(region)
        self._added(cond, [])                                 # cf.cond_br
        self.blocks[cond].successors += [body, after]
        return after

    def _if(self, i: int, operands, cur: int, region) -> int:
        then = self._new_block(region)
        has_else = bool(self.children.get((i, 1)))
        last_then = self._emit(self.children.get((i, 0), []), then, region)
        els = self._new_block(region) if has_else else None
        last_else = self._emit(self.children.get((i, 1), []), els, region) if els is not None else None
        cont = self._new_block(region, self._results(i))
        self._added(cur, operands[:1])                        # cf.cond_br %cond
        self.blocks[cur].successors += [then, els if els is not None else cont]
        term, yielded = self._terminator(i, 0)
        self._branch(last_then, term, yielded, [cont])
        if last_else is not None:
            term, yielded = self._terminator(i, 1)
            self._branch(last_else, term, yielded, [cont])
        return cont

    def _while(self, i: int, operands, cur: int, region) -> int:
        before = self._new_block(region, self._arguments(i, 0))
        self._added(cur, operands)
        self.blocks[cur].successors.append(before)
        last_before = self._emit(self.children.get((i, 0), []), before, region)
        after = self._new_block(region, self._arguments(i, 1))
        last_after = self._emit(self.children.get((i, 1), []), after, region)
        cont = self._new_block(region)
        term, forwarded = self._terminator(i, 0)
        self._branch(last_before, term, forwarded, [after, cont])
        for old, new in zip(self._results(i), forwarded[1:]):
            if new is not None:
                self.rename[old] = new
        term, yielded = self._terminator(i, 1)
        self._branch(last_after, term, yielded, [before])
        return cont

    # ---------------------------------------------------------------- numbering and liveness

    def _number(self) -> None:
        self.ids: dict[Item, int] = {}
        self.position: dict[Item, int] = {}
        ids, position, blocks, region_blocks = self.ids, self.position, self.blocks, self.region_blocks
        regions: dict[Item, list[int]] = {}            # op -> its regions that have blocks
        for owner, r in region_blocks:
            regions.setdefault(owner, []).append(r)

        def items(key: tuple) -> Iterator[tuple[int, Item]]:
            for b in region_blocks.get(key, ()):
                yield from enumerate(blocks[b].items)

        # post-order: an item's regions (in order) before the item; a stack of the regions being walked, each
        # with the item they belong to (a loop, not a recursive nested function: that would be a reference
        # cycle, and the function's tables would wait for the cyclic collector)
        stack: list[tuple[Iterator[tuple[int, Item]], Item]] = [(items((self.root, 0)), self.root)]
        while stack:
            walk, owner = stack[-1]
            step = next(walk, None)
            if step is None:
                stack.pop()
                ids[owner] = len(ids)
                continue
            k, item = step
            position[item] = k
            if item in regions:
                stack.append((itertools.chain.from_iterable([items((item, r)) for r in sorted(regions[item])]), item))
            else:
                ids[item] = len(ids)

    def value(self, v: Value) -> Value:
        return self.rename.get(v, v)

    # What `_live_blocks` and `live_range` read, gathered when the first live range is asked (a function with no
    # shared allocation asks none): where each value is used, the blocks enclosing each block and each block's
    # predecessors.

    @cached_property
    def users(self) -> dict[Value, list[Item]]:
        """Every value used in the function -> the items using it (as renamed: `value`), in order."""
        renamed = self.rename.get          # `value` (once per use: spelled out)
        users: dict[Value, list[Item]] = {}
        for item, uses in self.uses.items():
            for u in uses:
                if u is None:
                    continue
                v = renamed(u, u)
                if v in users:
                    users[v].append(item)
                else:
                    users[v] = [item]
        return users

    @cached_property
    def _outer(self) -> list[list[int]]:
        """Per block: itself, then the blocks holding it."""
        return [self._enclosing(b) for b in range(len(self.blocks))]

    @cached_property
    def _preds(self) -> dict[int, list[int]]:
        preds: dict[int, list[int]] = {}
        for b, block in enumerate(self.blocks):
            for s in block.successors:
                preds.setdefault(s, []).append(b)
        return preds

    def _live_blocks(self, v: Value, home: int) -> tuple[set[int], set[int]]:
        """(the blocks v is live-in at, those it is live-out at) by MLIR's equations (module docstring),
        solved for v alone: they act on each value apart (unions and differences of sets), so v's part of
        their least fixed point is v's own. ``def`` holds v at its home block and the blocks holding that one,
        ``use`` at every other block that is or holds a user's block, ``out`` first at home when a user sits
        in another block of home's region. Then v is live-in exactly at the blocks outside ``def`` from which
        a path through such blocks reaches a ``use`` block (home's ``out`` adds nothing: home is in ``def``),
        and live-out at home as said and at every predecessor of a live-in block."""
        defining = set(self._outer[home])
        users = self.users.get(v, ())
        block_of = self.block_of
        live_in: set[int] = set()
        todo: list[int] = []
        for u in users:
            for x in self._outer[block_of[u]]:
                if x not in defining and x not in live_in:
                    live_in.add(x)
                    todo.append(x)
        while todo:
            for p in self._preds.get(todo.pop(), ()):
                if p not in defining and p not in live_in:
                    live_in.add(p)
                    todo.append(p)
        live_out = {p for b in live_in for p in self._preds.get(b, ())}
        region = self.blocks[home].region
        if any(block_of[u] != home and self._block_in_region(block_of[u], region) not in (None, home)
               for u in users):         # (a user in home itself is in home's region: no)
            live_out.add(home)
        return live_in, live_out

    def _enclosing(self, b: int) -> list[int]:
        out = [b]
        owner = self.region_owner(self.blocks[b].region)
        while owner is not None and owner in self.block_of:
            out.append(self.block_of[owner])
            owner = self.region_owner(self.blocks[out[-1]].region)
        return out

    def region_owner(self, region: tuple) -> Item | None:
        return None if region == (self.root, 0) else region[0]

    def _block_in_region(self, b: int, region: tuple) -> int | None:
        """The block of `region` that is or holds block b."""
        while self.blocks[b].region != region:
            owner = self.region_owner(self.blocks[b].region)
            if owner is None or owner not in self.block_of:
                return None
            b = self.block_of[owner]
        return b

    def _ancestor_in(self, b: int, item: Item) -> Item | None:
        while self.block_of.get(item) != b:
            owner = self.region_owner(self.blocks[self.block_of[item]].region)
            if owner is None or owner not in self.block_of:
                return None
            item = owner
        return item

    def live_range(self, v: Value) -> tuple[int, int] | None:
        """[first, last + 1) of the ids of the operations v is live at (resolveLiveness); None for a value
        the graph does not hold."""
        v = self.value(v)
        home = self.defined_in.get(v)
        if home is None and v[0] == "result" and v[2] in self.ops[v[1]].results:
            home = self.block_of.get(v[1])      # the block holding its operation (a structured op is in none)
        if home is None:
            return None
        users = self.users.get(v, [])
        live_in, live_out = self._live_blocks(v, home)
        block_of, position, ids = self.block_of, self.position, self.ids
        todo = [home] + [block_of[u] for u in users]
        seen: set[int] = set()
        lo = hi = None
        while todo:
            b = todo.pop(0)
            if b in seen:
                continue
            seen.add(b)
            items = self.blocks[b].items
            if not items:
                continue
            defined_here = v[0] == "result" and b == home and block_of.get(v[1]) == b
            start = v[1] if defined_here and b not in live_in else items[0]
            if b in live_out:
                end = items[-1]
            else:
                end = start
                for u in users:
                    a = u if block_of.get(u) == b else self._ancestor_in(b, u)     # (most users: in b itself)
                    if a is not None and position[a] > position[end]:
                        end = a
            lo = ids[start] if lo is None else min(lo, ids[start])
            hi = ids[end] + 1 if hi is None else max(hi, ids[end] + 1)
            todo += [s for s in self.blocks[b].successors if s in live_in and s not in seen]
        return None if lo is None else (lo, hi)
