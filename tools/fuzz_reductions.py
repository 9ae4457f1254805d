"""Random tt.reduce modules of 64-lane AMD waves: the shared memory Triton allocates for their cross-warp rounds,
against layoutcheck's figure under the same Triton version.

    python tools/fuzz_reductions.py --seed 2 --count 400                 # compare with the installed Triton
    python tools/fuzz_reductions.py --seed 5 --count 40 --write tests/properties/fixtures/reduction_rounds_amd
                                                                        # keep modules and Triton's figures

Each module is one function reducing a tensor of a random blocked layout (sizePerThread, 64 lanes and 2 to 16
warps split over two dims, either order; the tensor one to two tiles; 8-, 16- or 32-bit elements) along a
random axis, for hip:gfx942 or hip:gfx950. The oracle is `allocation_oracle.allocate` (Triton's own passes up
to allocation: the module's ``ttg.shared``); layoutcheck's is `checker.ttgir.allocation.budget` under the
installed Triton's version. Such a module allocates nothing but the reduction's scratch, so the two compare its
rounds (`checker.properties.reduction.rounds_and_scratch`, with `conversion_cost.reduction_target`).
``--write DIR`` keeps ``reduce_<seed>_<i>.ttgir`` and adds Triton's figure under its version to
``DIR/expected.json`` (``{file: {"3.8": bytes, "3.9": bytes}}``); run it once per Triton release (the same
seed makes the same modules). Needs Triton; layoutcheck never imports this.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

TARGETS = ("gfx942", "gfx950")
ELEMENTS = {32: ("f32", "arith.addf"), 16: ("f16", "arith.addf"), 8: ("i8", "arith.addi")}


def _split(total: int, parts: int, rng: random.Random) -> list[int]:
    """A power of two `total` as a product of `parts` powers of two, at random."""
    out = [1] * parts
    for _ in range(total.bit_length() - 1):
        out[rng.randrange(parts)] *= 2
    return out


def module(rng: random.Random) -> tuple[str, str]:
    """(target, TTGIR text) of one random reduction."""
    target = rng.choice(TARGETS)
    warps = rng.choice([2, 4, 8, 16])
    tpw, wpc = _split(64, 2, rng), _split(warps, 2, rng)
    spt = [rng.choice([1, 1, 2, 4, 8]), rng.choice([1, 2, 4, 8, 16])]
    order = rng.choice([[1, 0], [0, 1]])
    shape = [spt[d] * tpw[d] * wpc[d] * rng.choice([1, 1, 2]) for d in range(2)]
    axis = rng.randrange(2)
    ty, combine = ELEMENTS[rng.choice([32, 16, 32, 8])]
    enc = f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>"
    src = f"tensor<{shape[0]}x{shape[1]}x{ty}, #blocked>"
    res = f"tensor<{shape[1 - axis]}x{ty}, #ttg.slice<{{dim = {axis}, parent = #blocked}}>>"
    return target, f"""#blocked = {enc}
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {warps} : i32, ttg.target = "hip:{target}", \
"ttg.threads-per-warp" = 64 : i32}} {{
  tt.func public @reduce_rounds(%x: {src}) -> {res} {{
    %s = "tt.reduce"(%x) <{{axis = {axis} : i32}}> ({{
    ^bb0(%a: {ty}, %b: {ty}):
      %c = {combine} %a, %b : {ty}
      tt.reduce.return %c : {ty}
    }}) : ({src}) -> {res}
    tt.return %s : {res}
  }}
}}
"""


def ours(text: str, version: str) -> int:
    from checker.syntax.ttgir import read_ttgir
    from checker.ttgir.allocation import budget
    from checker.versions import parse, using
    with using(parse(version)):
        return budget(read_ttgir(text)[0]).total


def main(argv=None) -> int:
    import allocation_oracle
    import triton
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--write", help="keep the modules and Triton's figures in this folder")
    args = ap.parse_args(argv)
    version = ".".join(triton.__version__.split(".")[:2])
    rng = random.Random(args.seed)
    expected: dict = {}
    if args.write:
        os.makedirs(args.write, exist_ok=True)
        path = os.path.join(args.write, "expected.json")
        expected = json.load(open(path)) if os.path.exists(path) else {}
    compared = differ = 0
    for i in range(args.count):
        target, text = module(rng)
        got = allocation_oracle.allocate(text, "hip:" + target)
        if "error" in got:
            continue
        mine = ours(text, version)
        compared += 1
        if mine != got["shared"]:
            differ += 1
            print(f"DIFFERS: Triton {got['shared']}, layoutcheck {mine}\n{text}")
        if args.write:
            name = f"reduce_{args.seed}_{i}.ttgir"
            with open(os.path.join(args.write, name), "w", encoding="utf-8") as f:
                f.write(text)
            expected.setdefault(name, {})[version] = got["shared"]
    if args.write:
        with open(os.path.join(args.write, "expected.json"), "w", encoding="utf-8") as f:
            json.dump(expected, f, indent=1, sort_keys=True)
    print(f"Triton {triton.__version__}: {compared} modules, {compared - differ} equal, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
