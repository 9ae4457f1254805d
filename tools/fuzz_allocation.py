"""Random TTGIR functions whose shared memory Triton allocates and layoutcheck sizes: the two must agree.

    .venv/bin/python tools/fuzz_allocation.py --seed 0 --count 300                  # compare, print the differences
    .venv/bin/python tools/fuzz_allocation.py --seed 0 --count 60 --write tests/allocation   # fixtures for the tests

Each module is one ``tt.func`` built from a seeded random program over shared buffers: ``ttg.local_alloc``
(mutable, or from a tensor) of a few shapes, ``ttg.local_store`` into buffers and ``memdesc_index`` views,
``ttg.local_dealloc``, ``ttg.convert_layout`` through shared memory (scratch), nested ``scf.for`` (with buffers
carried in ``iter_args`` and swapped by the yield), ``scf.if`` (with or without buffer results) and ``scf.while``.
The program is then canonicalized by Triton (canonicalizer and CSE: what a compiled kernel's TTGIR always
is; dead buffers and unused loop-carried values go), and that text is what both sides read. The target is one of
cuda:80, cuda:90, cuda:100, hip:gfx942, hip:gfx950, hip:gfx1250.

The oracle is `allocation_oracle.allocate` (Triton's own passes up to allocation); layoutcheck's figure is
`checker.ttgir.allocation.budget`. ``--write DIR`` keeps ``fuzz_<seed>.ttgir`` and ``expected.json`` (the module
file -> Triton's ``shared`` and every op's offset) for tests/ttgir/test_allocation.py. Needs Triton.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TARGETS = [("cuda:80", 32), ("cuda:90", 32), ("cuda:100", 32), ("hip:gfx942", 64), ("hip:gfx950", 64),
           ("hip:gfx1250", 32)]
SHAPES = [(16, 16), (32, 32), (64, 32), (64, 64), (128, 64), (32, 128), (128, 128)]


class Program:
    def __init__(self, rng: random.Random, lanes: int):
        self.rng = rng
        self.lanes = lanes
        self.n = 0
        self.lines: list[str] = []
        self.shapes = rng.sample(SHAPES, 3)
        self.conditions = 0

    def condition(self) -> str:
        """A condition of its own for each branch and loop (one shared by two lets the canonicalizer fold
        a branch whose outcome the other decided)."""
        self.conditions += 1
        return f"%c{self.conditions}"
    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"%{stem}{self.n}"

    @staticmethod
    def memdesc(shape, buffers: int = 0) -> str:
        dims = (f"{buffers}x" if buffers else "") + f"{shape[0]}x{shape[1]}"
        return f"!ttg.memdesc<{dims}xf16, #shared, #smem, mutable>"

    @staticmethod
    def tensor(shape, enc: str = "#blocked") -> str:
        return f"tensor<{shape[0]}x{shape[1]}xf16, {enc}>"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * (depth + 2) + text)

    def block(self, depth: int, live: list, budget: int) -> list:
        """Statements of one block; `live`: buffers usable here, (name, shape, buffers). Returns the live
        buffers at its end (those allocated here included, deallocated ones removed)."""
        live = list(live)
        for _ in range(budget):
            r = self.rng.random()
            if r < 0.28 or not live:
                shape = self.rng.choice(self.shapes)
                name = self.fresh("a")
                buffers = self.rng.choice([0, 0, 0, 2, 3])
                if buffers == 0 and self.rng.random() < 0.3:
                    self.emit(depth, f"{name} = ttg.local_alloc %cst_{shape[0]}_{shape[1]} : "
                                     f"({self.tensor(shape)}) -> {self.memdesc(shape).replace(', mutable', '')}")
                    if self.rng.random() < 0.8:
                        self.read(depth, name, shape, mutable=False)
                    continue      # an immutable buffer: never stored to
                self.emit(depth, f"{name} = ttg.local_alloc : () -> {self.memdesc(shape, buffers)}")
                live.append((name, shape, buffers))
            elif r < 0.50:
                self.store(depth, self.rng.choice(live))
            elif r < 0.58:
                victim = self.rng.choice(live)
                self.emit(depth, f"ttg.local_dealloc {victim[0]} : {self.memdesc(victim[1], victim[2])}")
                live.remove(victim)
            elif r < 0.68:
                target = self.rng.choice(live)
                shape = target[1]
                cv = self.fresh("cv")
                self.emit(depth, f"{cv} = ttg.convert_layout %cst_{shape[0]}_{shape[1]} : {self.tensor(shape)} -> "
                                 f"{self.tensor(shape, '#blocked1')}")
                self.store(depth, target, value=(cv, "#blocked1"))
            elif r < 0.82 and depth < 3:
                live = self.loop(depth, live)
            elif r < 0.95 and depth < 3:
                live = self.branch(depth, live)
            elif depth < 3:
                live = self.while_loop(depth, live)
        return live

    def store(self, depth: int, buf, value=None) -> None:
        name, shape, buffers = buf
        target = name
        if buffers:
            target = self.fresh("v")
            self.emit(depth, f"{target} = ttg.memdesc_index {name}[%c0_i32] : {self.memdesc(shape, buffers)} -> "
                             f"{self.memdesc(shape)}")
        val, enc = value or (f"%cst_{shape[0]}_{shape[1]}", "#blocked")
        self.emit(depth, f"ttg.local_store {val}, {target} : {self.tensor(shape, enc)} -> {self.memdesc(shape)}")
        self.read(depth, target, shape, mutable=True)

    def read(self, depth: int, buf: str, shape, mutable: bool) -> None:
        """Load the buffer and store what it holds to global memory (a buffer nobody reads is erased)."""
        loaded = self.fresh("l")
        t = self.memdesc(shape) if mutable else self.memdesc(shape).replace(", mutable", "")
        self.emit(depth, f"{loaded} = ttg.local_load {buf} : {t} -> {self.tensor(shape)}")
        self.emit(depth, f"tt.store %ptr_{shape[0]}_{shape[1]}, {loaded} : "
                         f"tensor<{shape[0]}x{shape[1]}x!tt.ptr<f16>, #blocked>")

    def loop(self, depth: int, live: list) -> list:
        carried = [b for b in live if self.rng.random() < 0.4]
        if carried:
            args = ", ".join(f"%it{self.n + 1 + k} = {b[0]}" for k, b in enumerate(carried))
            names = [f"%it{self.n + 1 + k}" for k in range(len(carried))]
            self.n += len(carried)
            res = self.fresh("f")
            types = ", ".join(self.memdesc(b[1], b[2]) for b in carried)
            self.emit(depth, f"{res}:{len(carried)} = scf.for %i{self.n} = %c0_i32 to %n step %c1_i32 "
                             f"iter_args({args}) -> ({types}) : i32 {{")
            inner = [(nm, b[1], b[2]) for nm, b in zip(names, carried)] + [b for b in live if b not in carried]
            inner = self.block(depth + 1, inner, self.rng.randint(1, 4))
            yielded = []
            for nm, b in zip(names, carried):
                same = [x for x in inner if x[1:] == b[1:]]
                pick = self.rng.choice(same) if same else (nm, b[1], b[2])
                yielded.append(pick[0])
            self.emit(depth + 1, f"scf.yield {', '.join(yielded)} : {types}")
            self.emit(depth, "}")
            results = [(f"{res}#{k}", b[1], b[2]) for k, b in enumerate(carried)]
            return [b for b in live if b not in carried] + results
        self.emit(depth, f"scf.for %i{self.fresh('')[1:]} = %c0_i32 to %n step %c1_i32 : i32 {{")
        self.block(depth + 1, live, self.rng.randint(1, 4))
        self.emit(depth, "}")
        return live

    def branch(self, depth: int, live: list) -> list:
        shapes = [b for b in live if b[2] == 0]
        if shapes and self.rng.random() < 0.4:
            b = self.rng.choice(shapes)
            res = self.fresh("r")
            t = self.memdesc(b[1])
            self.emit(depth, f"{res} = scf.if {self.condition()} -> ({t}) {{")
            inner = self.block(depth + 1, live, self.rng.randint(1, 3))
            same = [x for x in inner if x[1:] == b[1:]] or [b]
            self.emit(depth + 1, f"scf.yield {self.rng.choice(same)[0]} : {t}")
            self.emit(depth, "} else {")
            inner = self.block(depth + 1, live, self.rng.randint(0, 3))
            same = [x for x in inner if x[1:] == b[1:]] or [b]
            self.emit(depth + 1, f"scf.yield {self.rng.choice(same)[0]} : {t}")
            self.emit(depth, "}")
            return live + [(res, b[1], 0)]
        self.emit(depth, f"scf.if {self.condition()} {{")
        self.block(depth + 1, live, self.rng.randint(1, 3))
        if self.rng.random() < 0.5:
            self.emit(depth, "} else {")
            self.block(depth + 1, live, self.rng.randint(1, 3))
        self.emit(depth, "}")
        return live

    def while_loop(self, depth: int, live: list) -> list:
        single = [b for b in live if b[2] == 0]
        if not single:
            return live
        b = self.rng.choice(single)
        t = self.memdesc(b[1])
        res, arg, body = self.fresh("w"), self.fresh("wa"), self.fresh("wb")
        self.emit(depth, f"{res} = scf.while ({arg} = {b[0]}) : ({t}) -> {t} {{")
        self.store(depth + 1, (arg, b[1], 0))
        self.emit(depth + 1, f"scf.condition({self.condition()}) {arg} : {t}")
        self.emit(depth, "} do {")
        self.emit(depth, f"^bb0({body}: {t}):")
        inner = self.block(depth + 1, [(body, b[1], 0)] + [x for x in live if x != b], self.rng.randint(1, 3))
        same = [x for x in inner if x[1:] == b[1:]] or [(body, b[1], 0)]
        self.emit(depth + 1, f"scf.yield {self.rng.choice(same)[0]} : {t}")
        self.emit(depth, "}")
        return [x for x in live if x != b] + [(res, b[1], 0)]


def module(seed: int) -> tuple[str, str]:
    rng = random.Random(seed)
    target, lanes = rng.choice(TARGETS)
    p = Program(rng, lanes)
    p.block(0, [], rng.randint(3, 12))
    tpw = "[4, 8]" if lanes == 32 else "[8, 8]"
    tpw1 = "[8, 4]" if lanes == 32 else "[8, 8]"
    consts = [f"    %cst_{s[0]}_{s[1]} = arith.constant dense<0.000000e+00> : tensor<{s[0]}x{s[1]}xf16, #blocked>"
              for s in p.shapes]
    consts += [f"    %ptr_{s[0]}_{s[1]} = tt.splat %p : !tt.ptr<f16> -> tensor<{s[0]}x{s[1]}x!tt.ptr<f16>, #blocked>"
               for s in p.shapes]
    head = [
        f"// fuzz_allocation.py --seed {seed}: Triton's allocation against layoutcheck's ({target})",
        f"#blocked = #ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = {tpw}, warpsPerCTA = [4, 1], "
        f"order = [1, 0]}}>",
        f"#blocked1 = #ttg.blocked<{{sizePerThread = [4, 1], threadsPerWarp = {tpw1}, warpsPerCTA = [1, 4], "
        f"order = [0, 1]}}>",
        "#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
        "#smem = #ttg.shared_memory",
        f'module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "{target}", '
        f'"ttg.threads-per-warp" = {lanes} : i32}} {{',
        "  tt.func public @fuzz(%p: !tt.ptr<f16>, %n: i32"
        + "".join(f", %c{k}: i1" for k in range(1, p.conditions + 1)) + ") {",
        "    %c0_i32 = arith.constant 0 : i32",
        "    %c1_i32 = arith.constant 1 : i32",
    ] + consts
    return "\n".join(head + p.lines + ["    tt.return", "  }", "}", ""]), target


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--write", help="folder for the fixtures (fuzz_<seed>.ttgir, expected.json)")
    args = ap.parse_args(argv)
    from allocation_oracle import allocate, canonicalize

    from checker.syntax.ttgir import read_ttgir
    from checker.ttgir.allocation import budget
    expected, agree, rejected = {}, 0, 0
    for seed in range(args.seed, args.seed + args.count):
        text, target = module(seed)
        try:
            text = f"// fuzz_allocation.py --seed {seed} ({target}), canonicalized by Triton\n" + canonicalize(text)
            got = allocate(text, target)
        except Exception as e:                       # noqa: BLE001
            rejected += 1
            print(f"seed {seed}: Triton rejects it: {str(e).splitlines()[0][:160]}")
            continue
        [m] = read_ttgir(text, f"fuzz_{seed}.ttgir")
        ours = budget(m)
        mine = sorted([b.line, b.offset] for b in ours.buffers if b.kind != "virtual")
        theirs = sorted([line, off] for line, _, off, _ in got["ops"])
        ok = ours.total == got["shared"] and mine == theirs
        agree += ok
        if not ok:
            print(f"seed {seed} ({target}): layoutcheck {ours.total}, Triton {got['shared']}; "
                  f"offsets {mine} vs {theirs}")
        if args.write:
            name = f"fuzz_{seed}.ttgir"
            with open(os.path.join(args.write, name), "w") as f:
                f.write(text)
            expected[name] = {"target": target, "shared": got["shared"], "ops": theirs}
    if args.write:
        with open(os.path.join(args.write, "expected.json"), "w") as f:
            json.dump(expected, f, indent=1, sort_keys=True)
            f.write("\n")
    print(f"{agree} of {args.count - rejected} modules agree ({rejected} rejected by Triton)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
