"""Robustness fuzz campaign: bad input must give one clear line and exit 2 (docs/robustness.md).

    python tools/fuzz.py                          # 10,000 inputs over the five surfaces, 2 workers
    python tools/fuzz.py --count 50000 --jobs 4 --seed 7 --out fuzz-out/
    python tools/fuzz.py --surface attr --count 2000

Inputs are generated from a seed (input i of a campaign is ``random.Random(seed * 1_000_003 + i)``, so
any failure replays alone with ``--only i``) by mutating real inputs (the bundled specs, encoding files,
TTGIR kernels and corpus files, attribute text printed from them, Gluon specs) and by generators aimed
at each class of issue 11: files that are not UTF-8 or hold control characters, deep nesting, huge
sizes, wrong types, non-ASCII digits. The five surfaces:

- ``spec``: a YAML spec file, run as ``layoutcheck verify FILE --engine f2 --jobs 1``;
- ``encoding``: a YAML encoding file, run as ``layoutcheck lower --file FILE --name N``;
- ``attr``: attribute text (or a pasted type), run as ``layoutcheck show|lower TEXT --shape S``;
- ``ttgir``: a TTGIR file, run as ``layoutcheck verify FILE --engine f2 --jobs 1``;
- ``api``: ``checker.parse_encoding``, ``checker.lower``, ``checker.prove.*`` on Python values;
- ``swizzle``: ``layoutcheck swizzle`` on two register layouts (mutated attribute text, pasted types, sub-byte
  and odd element widths) or on a TTGIR file's ``--line``;
- ``run`` (not in the default set: each input is a process running Triton; ``--surface run``): ``layoutcheck
  run -- python prog.py`` on programs that compile a kernel or none, set their own compilation listener (a
  function, None, one that raises, set before or after layoutcheck's), die of a signal, leave through
  ``os._exit`` or ``sys.exit`` with a status or a message, end stderr without a newline. The expected exit
  status is known from the program (its own when it failed, 128 + the signal, 1 when it compiled nothing)
  and must be the one `run` gives, with every kernel verified, the program's listener still called, and no
  traceback from layoutcheck's own code.

Each input runs in the worker process under a 10 s alarm (of CPU time) and a memory limit (a ``run`` input: its
process under a 180 s wall-clock limit). A failure is a traceback
(any exception but `CheckerError` from the API, or one escaping `checker.cli.main`), a hang (the
alarm), exit 3, or an exit-2 message that is not one line of at most `checker.errors.MAX_MESSAGE`
characters naming where (the file, a command-line argument or the field). Failing inputs are
written under ``--out`` with a line to replay them.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SURFACES = ("spec", "encoding", "attr", "ttgir", "api", "swizzle")
ALL_SURFACES = SURFACES + ("run",)
RUN_TIMEOUT_S = 180
ALARM_S = 10
MEMORY_BYTES = 3 << 30

# Values that belong nowhere an integer does, or are integers out of every limit.
BAD_SCALARS = ["0", "-1", "2147483648", "4294967296", "18446744073709551616", "1" * 400, "1.5", "64.0", ".nan",
               ".inf", "-.inf", "1e999", "0100", "0x40", "0b11", "1_000", "1:30", "true", "yes", "no", "on", "null",
               "~", "''", '"x"', "[]", "{}", "[[[[1]]]]", "２", "1６", "²", "٣", "!!bool 1", "!!int x", "!!float y",
               "!!binary aGVsbG8=", "2024-01-01", "!!set {a}", "&a [1]", "*a", "!foo 1", "'\\x00'", "\"\\x07\""]
BAD_VALUES = [None, [], {}, "x", "", float("nan"), float("inf"), -float("inf"), True, False, 1.5, 64.0, 2 ** 31,
              2 ** 64, -1, 0, b"16", [True, 64], [64.5, 64], {"a": 1}, [[1]], "１６", (1 << 4000), [None]]
# Element types that are not MLIR's (or not widths a layout can hold).
BAD_ELEMENTS = ["f16", "f17", "bf17", "f0", "i0", "i4294967297", "f16f16", "xf16", "ff16", "f8E4M3", "f8E9M9",
                "i-1", "f", "i", "ui", "index", "tf33", "f16 ", "f１6"]
ODD_TEXT = ["\x00", "\x07", "\x1b[31m", "\u2028", "\x85", "\ufeff", "\ufffe", "²", "４", "\u00a0", "é", "\\",
            "\n", "\r", "\t", "#", "<", ">", "{", "}", "[", "]", "=", ",", ":", "+", "-", "//", "\"", "'", "!",
            "&", "*"]


# ---------------------------------------------------------------- seeds

def _seeds() -> dict:
    """The real inputs mutated: text of specs, encoding files, TTGIR, attribute text, Gluon specs."""
    from checker import parse_encoding
    from checker.syntax.mlir_attr import print_attribute
    from checker.syntax.yaml_decl import load_encodings
    specs = [p.read_text() for p in sorted((ROOT / "specs").glob("*.yaml"))]
    encs = {p.name: p.read_text() for p in sorted((ROOT / "encodings").glob("*.yaml"))}
    attrs = []
    for p in sorted((ROOT / "encodings").glob("*.yaml")):
        attrs += [print_attribute(e) for e in load_encodings(p).values()]
    ttgir = [p.read_text() for p in sorted((ROOT / "tests" / "corpus").glob("*.ttgir")) if p.stat().st_size < 6000]
    ttgir = ttgir[:40] + [p.read_text() for p in sorted((ROOT / "specs" / "kernels").glob("*.ttgir"))][:3]
    gluon = []
    conf = ROOT / "tests" / "conformance"
    for p in sorted(conf.glob("*.jsonl"))[:20]:
        for line in p.read_text().splitlines()[:30]:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            spec = rec.get("gluon") or rec.get("spec") or rec.get("layout")
            if isinstance(spec, dict) and "class" in spec:
                gluon.append(spec)
    if not gluon:
        gluon = [{"class": "BlockedLayout", "params": {"size_per_thread": [1, 4], "threads_per_warp": [8, 4],
                                                       "warps_per_cta": [4, 1], "order": [1, 0]}}]
    registers: dict[int, list[str]] = {}          # register layouts by rank (a swizzle pair shares one)
    for a in attrs:
        if "shared" not in a and "tensor_memory" not in a and a.count("<") < 6:
            with contextlib.suppress(Exception):
                registers.setdefault(parse_encoding(a).rank, []).append(a)
    with_buffers = sorted(p for p in (ROOT / "tests" / "corpus").glob("*.ttgir") if p.stat().st_size < 12000)
    swizzle_ttgir = [t for t in (p.read_text() for p in with_buffers) if "ttg.local_store" in t][:12]
    swizzle_ttgir += [p.read_text() for p in sorted((ROOT / "specs" / "kernels").glob("*.ttgir"))][:2]
    return {"spec": specs, "encoding": encs, "attr": attrs, "ttgir": ttgir, "gluon": gluon, "registers": registers,
            "swizzle_ttgir": swizzle_ttgir}


# ---------------------------------------------------------------- mutation

_INT = re.compile(r"(?<![\w.])-?[0-9]+(?![\w.])")


def mutate_text(rng: random.Random, text: str, rounds: int | None = None) -> str:
    """A few random edits: numbers swapped for bad values, characters inserted, spans cut or repeated,
    nesting deepened, lines shuffled."""
    for _ in range(rounds or rng.randint(1, 3)):
        op = rng.randrange(10)
        if op <= 2:
            nums = list(_INT.finditer(text))
            if nums:
                m = rng.choice(nums)
                text = text[:m.start()] + rng.choice(BAD_SCALARS) + text[m.end():]
                continue
        if op == 3 and text:
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice(ODD_TEXT) * rng.choice((1, 1, 2, 50)) + text[i:]
        elif op == 4 and text:
            i, j = sorted(rng.randrange(len(text) + 1) for _ in range(2))
            text = text[:i] + text[j:]
        elif op == 5 and text:
            i, j = sorted(rng.randrange(len(text) + 1) for _ in range(2))
            text = text[:j] + text[i:j] * rng.choice((1, 2, 30)) + text[j:]
        elif op == 6 and text:
            i = rng.randrange(len(text))
            k = rng.choice((70, 200, 600))
            o, c = rng.choice((("[", "]"), ("{", "}"), ("<", ">")))
            text = text[:i] + o * k + c * k + text[i:]
        elif op == 7:
            lines = text.split("\n")
            rng.shuffle(lines)
            text = "\n".join(lines)
        elif op == 8 and text:
            i = rng.randrange(len(text))
            text = text[:i] + "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randint(1, 4))) + text[i:]
        elif op == 9:
            text = text[:rng.randrange(len(text) + 1)]
    return text


def encode(rng: random.Random, text: str) -> bytes:
    """Mostly UTF-8; sometimes Latin-1, UTF-16 (with or without BOM), or with binary bytes."""
    r = rng.random()
    if r < 0.85:
        return text.encode("utf-8", "surrogatepass")
    if r < 0.9:
        return text.encode("latin-1", "replace") + "é".encode("latin-1")
    if r < 0.95:
        return text.encode(rng.choice(("utf-16", "utf-16-le", "utf-16-be")), "surrogatepass")
    data = bytearray(text.encode("utf-8", "surrogatepass"))
    for _ in range(rng.randint(1, 5)):
        data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
    return bytes(data)


def mutate_value(rng: random.Random, value, depth: int = 0):
    """A Python structure with one leaf (or subtree) replaced by a bad value."""
    if isinstance(value, dict) and value and depth < 8:
        value = dict(value)
        k = rng.choice(list(value))
        value[k] = mutate_value(rng, value[k], depth + 1) if rng.random() < 0.6 else rng.choice(BAD_VALUES)
        return value
    if isinstance(value, list) and value and depth < 8:
        value = list(value)
        i = rng.randrange(len(value))
        value[i] = mutate_value(rng, value[i], depth + 1) if rng.random() < 0.6 else rng.choice(BAD_VALUES)
        return value
    return rng.choice(BAD_VALUES)


def nested(kind: str, n: int):
    """A slice-of-slice-of-... Gluon spec or YAML declaration n deep (built iteratively)."""
    if kind == "gluon":
        node = {"class": "BlockedLayout", "params": {"size_per_thread": [1], "threads_per_warp": [32],
                                                     "warps_per_cta": [4], "order": [0]}}
        for _ in range(n):
            node = {"class": "SliceLayout", "params": {"dim": 0, "parent": node}}
        return node
    node = {"kind": "blocked", "size_per_thread": [1], "threads_per_warp": [32], "warps_per_cta": [4],
            "order": [0]}
    for _ in range(n):
        node = {"kind": "slice", "dim": 0, "parent": node}
    return node


# ---------------------------------------------------------------- the inputs

def make_input(rng: random.Random, surface: str, seeds: dict) -> dict:
    """One input: {"surface", "files": {name: bytes}, "argv": [...]} or {"surface": "api", "call": ...}."""
    if surface == "spec":
        text = rng.choice(seeds["spec"]).replace("../encodings/", "enc/")
        text = _special_spec(rng) if rng.random() < 0.25 else mutate_text(rng, text)
        files = {f"enc/{n}": t.encode() for n, t in seeds["encoding"].items()}
        if rng.random() < 0.3:
            n = rng.choice(list(seeds["encoding"]))
            files[f"enc/{n}"] = encode(rng, mutate_text(rng, seeds["encoding"][n]))
        files["spec.yaml"] = encode(rng, text)
        return {"surface": surface, "files": files,
                "argv": ["verify", "spec.yaml", "--engine", "f2", "--jobs", "1", "--format", "text", "--quiet"]}
    if surface == "encoding":
        name, text = rng.choice(list(seeds["encoding"].items()))
        names = re.findall(r"^  ([A-Za-z_][\w]*):", text, re.M) or ["x"]
        files = {n: t.encode() for n, t in seeds["encoding"].items()}
        files[name] = encode(rng, mutate_text(rng, text) if rng.random() < 0.8 else _special_yaml(rng))
        shape = rng.choice(["64x64", "128x128", "16x16x16", "64", "4294967296x1", "1６x16", "0x4"])
        return {"surface": surface, "files": files,
                "argv": ["lower", "--file", name, "--name", rng.choice(names), "--shape", shape]}
    if surface == "attr":
        text = rng.choice(seeds["attr"])
        r = rng.random()
        if r < 0.15:
            text = f"tensor<{rng.choice(['64x64', '1６x16', '4294967296x1', '64x?', '0x4'])}xf16, {text}>"
        elif r < 0.2:                               # pasted types with bad shapes and element types (issue 27)
            text = (f"!ttg.memdesc<{rng.choice(['64x64', '64x-1', '-1x64', '64x0', '64xx64', '64x?'])}"
                    f"x{rng.choice(BAD_ELEMENTS)}, {text}, #ttg.shared_memory, mutable>")
        elif r < 0.25:
            k = rng.choice((10, 70, 200))
            text = "#ttg.slice<{dim = 0, parent = " * k + text + "}>" * k
        text = mutate_text(rng, text) if rng.random() < 0.85 else text
        shape = rng.choice(["64x64", "128x128", "16x16", "64", "16x16x16", "4294967296x1", "1048576x1048576",
                            "1６x16", "16xx", "+16x16", "1_6x16", "2048x2048"])
        cmd = rng.choice(["show", "show", "lower"])
        argv = [cmd, text, "--shape", shape] + (["--hw"] if cmd == "show" and rng.random() < 0.3 else [])
        if "\x00" in text:                  # argv cannot hold NUL: the text comes on stdin
            return {"surface": surface, "files": {}, "argv": argv[:1] + ["-"] + argv[2:], "stdin": encode(rng, text)}
        return {"surface": surface, "files": {}, "argv": argv}
    if surface == "ttgir":
        base = rng.choice(seeds["ttgir"])
        text = _special_ttgir(rng, base) if rng.random() < 0.25 else mutate_text(rng, base)
        return {"surface": surface, "files": {"k.ttgir": encode(rng, text)},
                "argv": ["verify", "k.ttgir", "--engine", "f2", "--jobs", "1", "--format", "text", "--quiet"]}
    if surface == "swizzle":
        return _swizzle_input(rng, seeds)
    if surface == "run":
        return _run_input(rng)
    return {"surface": "api", "call": _api_call(rng, seeds)}


def _swizzle_input(rng: random.Random, seeds: dict) -> dict:
    """``layoutcheck swizzle`` on a pair of register layouts (mutated, as pasted types, odd widths) or on a
    (mutated) TTGIR file and a line, real or not."""
    flags = ["--json"] if rng.random() < 0.2 else []
    if rng.random() < 0.2:
        flags += ["--hardware", rng.choice(["sm80", "sm90", "gfx942", "gfx950", "gfx1250", "sm9", "", "gfx942x"])]
    if rng.random() < 0.35:
        base = rng.choice(seeds["swizzle_ttgir"])
        text = mutate_text(rng, base) if rng.random() < 0.5 else base
        lines = [i for i, ln in enumerate(text.splitlines(), 1) if "local_load" in ln or "local_store" in ln]
        line = rng.choice(lines + [0, -3, 10 ** 9, 1]) if lines else rng.choice((1, 0, 10 ** 9))
        return {"surface": "swizzle", "files": {"k.ttgir": encode(rng, text)},
                "argv": ["swizzle", "--ttgir", "k.ttgir", "--line", str(line)] + flags}
    rank = rng.choice(sorted(seeds["registers"]))
    store, load = (rng.choice(seeds["registers"][rank]) for _ in range(2))
    if rng.random() < 0.4:
        store = mutate_text(rng, store) if rng.random() < 0.5 else store
        load = mutate_text(rng, load) if rng.random() < 0.5 else load
    good = {1: ["64", "256"], 2: ["64x64", "32x32", "16x64"], 3: ["2x64x64", "4x16x16"]}.get(rank, ["64x64"])
    if rng.random() < 0.3:                          # pasted types: the shape and element type come with them
        elt = rng.choice(BAD_ELEMENTS + ["f16", "i4", "f4E2M1FN", "i1", "f32", "f8E4M3FN"])
        shape = rng.choice(good + ["64x-1", "64x0", "1６x16"])
        store, load = (f"tensor<{shape}x{elt}, {t}>" for t in (store, load))
        return {"surface": "swizzle", "files": {}, "argv": ["swizzle", store, load] + flags}
    shape = rng.choice(good * 3 + ["64x64x2", "0x4", "1６x16", "4294967296x1", "64"])
    bits = rng.choice(["16", "8", "4", "1", "32", "64", "0", "-8", "3", "12", "128", "x"])
    dtype = ["--dtype-bits", bits] if rng.random() < 0.8 else []
    return {"surface": "swizzle", "files": {}, "argv": ["swizzle", store, load, "--shape", shape] + dtype + flags}


# A program for the ``run`` surface: a small Triton kernel compiled for cuda:80 on CPU (no GPU needed).
RUN_PROGRAM = """import os, signal, sys, threading
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget


@triton.jit
def copy(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


calls = []


def compile_one(n):
    src = triton.compiler.ASTSource(copy, {{"x_ptr": "*fp16", "y_ptr": "*fp16", "N": "constexpr"}}, {{"N": n}})
    triton.compile(src, target=GPUTarget("cuda", 80, 32), options={{"num_warps": 4}})


def listener(**kwargs):
    calls.append(kwargs.get("cache_hit"))


def raising(**kwargs):
    raise RuntimeError("the program's own listener fails")


{body}
"""


def _run_input(rng: random.Random) -> dict:
    """A program for ``layoutcheck run`` and what `run` must answer: {"surface": "run", "files", "argv",
    "expect": {"status", "kernels", "listener_calls"}}, None where the answer is not fixed (module docstring)."""
    sizes = rng.sample([64, 128, 256, 512], rng.randint(0, 2))
    listener = rng.choice([None, "listener", "None", "raising"])
    before = rng.random() < 0.5
    body: list[str] = []
    compiles = {True: 0, False: 0}                  # compilations with the program's listener set, and not
    if listener and before:
        body.append(f"triton.knobs.compilation.listener = {listener}")
    threaded = len(sizes) == 2 and rng.random() < 0.3
    if threaded:
        body += [f"ts = [threading.Thread(target=compile_one, args=(n,)) for n in {sizes}]",
                 "[t.start() for t in ts]", "[t.join() for t in ts]"]
    else:
        body += [f"compile_one({n})" for n in sizes]
    if sizes and rng.random() < 0.3:
        body.append(f"compile_one({sizes[0]})")     # a cache hit: verified once, still heard by the listener
    compiles[bool(listener and before)] += sum(b.startswith("compile_one(") for b in body) + 2 * threaded
    kernels = len(sizes)
    if listener and not before:
        body += [f"triton.knobs.compilation.listener = {listener}", f"compile_one({sizes[0] if sizes else 64})"]
        compiles[True] += 1
        kernels = max(kernels, 1)
    status, calls = 0, compiles[True] if listener == "listener" else None
    if listener == "listener":
        body.append('print(f"listener calls: {len(calls)}", file=sys.stderr)')
    if listener == "raising" and compiles[True]:    # the program dies of its own listener's exception
        return _run_case(body, 1, None, None)
    end = rng.choice(["exit0", "exit_status", "exit_message", "os_exit0", "os_exit", "signal", "no_newline", "raise"])
    if end == "exit_status":
        status = rng.choice((2, 3, 7, 255))
        body.append(f"sys.exit({status})")
    elif end == "exit_message":
        status = 1
        body.append('sys.exit("the program gives up")')
    elif end in ("os_exit0", "os_exit"):
        status = rng.choice((1, 4, 9)) if end == "os_exit" else 0
        body.append(f"sys.stderr.flush(); os._exit({status})")
    elif end == "signal":
        sig = rng.choice(["SIGINT", "SIGTERM", "SIGKILL", "SIGABRT", "SIGSEGV"])
        status = 128 + int(getattr(signal, sig))
        body.append(f"sys.stderr.flush(); os.kill(os.getpid(), signal.{sig})")
    elif end == "no_newline":
        body.append('sys.stderr.write("the program\'s last words, no newline"); sys.stderr.flush()')
    elif end == "raise":
        status = 1
        body.append('raise ValueError("the program fails on its own")')
    return _run_case(body, status, kernels, calls)


def _run_case(body: list[str], status: int, kernels: int | None, calls: int | None) -> dict:
    """`_run_input`'s result: a program ending well having compiled nothing gets status 1 and says so (a gate
    never passes for having seen nothing)."""
    nothing = status == 0 and kernels == 0
    return {"surface": "run", "files": {"prog.py": RUN_PROGRAM.format(body="\n".join(body)).encode()},
            "argv": ["run", "--", sys.executable, "prog.py"],
            "expect": {"status": 1 if nothing else status, "kernels": kernels, "listener_calls": calls,
                       "says_nothing_verified": nothing}}


def _special_ttgir(rng: random.Random, base: str) -> str:
    """TTGIR aimed at the reader's worst cases (issue 27): location aliases in a cycle or in a chain where each
    names the next twice, locations nested deep, runs of unclosed '<', a deep slice encoding inline, a module
    that checks nothing."""
    r = rng.random()
    n = rng.choice((20, 60, 1000, 5000))
    if r < 0.2:
        k = rng.randint(1, 3)
        names = [f"#lc{i}" for i in range(k)]
        cycle = "".join(f"{a} = loc(callsite({b} at {b}))\n" for a, b in zip(names, names[1:] + names[:1]))
        return cycle + re.sub(r"loc\(#loc\d+\)", "loc(#lc0)", base, count=rng.randint(1, 5))
    if r < 0.4:
        chain = "".join(f"#ch{i} = loc(callsite(#ch{i + 1} at #ch{i + 1}))\n" for i in range(n))
        chain += f'#ch{n} = loc("k.py":1:1)\n'
        return chain + re.sub(r"loc\(#loc\d+\)", "loc(#ch0)", base, count=rng.randint(1, 5))
    if r < 0.6:
        deep = "loc(" + '"n"(' * n + '"k.py":1:1' + ")" * n + ")"
        return re.sub(r"loc\(#loc\d+\)", lambda m: deep, base, count=1)
    if r < 0.75:
        return base + "\n#a = #ttg.blocked" + "<" * n + "\n"
    if r < 0.9:
        inner = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"
        deep = "#ttg.slice<{dim = 0, parent = " * min(n, 80) + inner + "}>" * min(n, 80)
        return f"#deep = {deep}\n" + base
    return 'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {\n}\n'


def _special_spec(rng: random.Random) -> str:
    """Specs aimed at the classes: sweeps too large or of the wrong type, aliases, deep nesting."""
    blocked = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>"
    head = f'version: 1\nhardware: sm90\nencodings:\n  b: {{attr: "{blocked}"}}\nchecks:\n'
    check = "  - id: c\n    prove: surjective\n    layout: b\n    shape: [128, 1]\n"
    sweeps = [f"    sweep:\n      num_warps: [{', '.join(['4'] * 100)}]\n"
              f"      shape: [{', '.join(['[128, 1]'] * 100)}]\n",
              "    sweep: {1: [2]}\n", "    sweep: {warps_per_cta: [true]}\n", "    sweep: {num_warps: [.inf]}\n",
              "    sweep: {num_warps: 4}\n", "    sweep: {num_warps: []}\n", "    sweep: {shape: [[1.5, 2]]}\n",
              "    sweep: {size_per_thread: [[1, 2147483648]]}\n", "    sweep: {order: ['x']}\n"]
    r = rng.random()
    if r < 0.5:
        return head + check + rng.choice(sweeps)
    if r < 0.7:
        return head + check.replace("[128, 1]", rng.choice(BAD_SCALARS))
    if r < 0.85:
        return _special_yaml(rng)
    return head.replace("version: 1", f"version: {rng.choice(BAD_SCALARS)}") + check


def _special_yaml(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.3:
        lol = "x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        lol += "".join(f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9))
        return "version: 1\n" + lol + "encodings: {}\nchecks: *a8\n"
    if r < 0.6:
        n = rng.choice((65, 200, 500))
        return "version: 1\nencodings:\n  a: " + "[" * n + "]" * n + "\n"
    if r < 0.7:                                     # inline parents nested deep (a RecursionError in jsonschema)
        import yaml
        return yaml.safe_dump({"version": 1, "encodings": {"a": nested("yaml", rng.choice((20, 30, 63, 70)))}})
    if r < 0.8:
        return "version: 1\nencodings:\n  a: &x {kind: slice, dim: 0, parent: *x}\n"
    return "version: 1\nencodings:\n  a: {kind: blocked, size_per_thread: [1, 1], threads_per_warp: [32, 1], " \
           f"warps_per_cta: [{rng.choice(BAD_SCALARS)}, 1], order: [0, 1]}}\n"


def _api_call(rng: random.Random, seeds: dict) -> tuple:
    """(function name, args, kwargs) with bad values where they hurt."""
    r = rng.random()
    gluon = rng.choice(seeds["gluon"])
    attr = rng.choice(seeds["attr"])
    if r < 0.25:
        return ("parse_encoding", (mutate_value(rng, gluon),), {})
    if r < 0.35:
        return ("parse_encoding", (nested(rng.choice(("gluon", "yaml")), rng.choice((10, 70, 5000))),), {})
    if r < 0.5:
        decl = {"kind": "blocked", "size_per_thread": [1, 4], "threads_per_warp": [8, 4], "warps_per_cta": [4, 1],
                "order": [1, 0]}
        return ("parse_encoding", (mutate_value(rng, decl),), {})
    if r < 0.7:
        shape = rng.choice(BAD_VALUES + [[64, 64], [2 ** 31, 2], [2 ** 62, 1], "64x64", b"\x40\x40", (64, 64)])
        return ("lower", (attr, shape), {})
    if r < 0.8:
        return ("parse_encoding", (mutate_text(rng, attr),), {})
    if r < 0.9:
        return ("prove.fits", (attr,), {"dtype_bits": rng.choice([16, 0, -1, 2 ** 40, 1.5, True, None, "16"]),
                                        "capacity_bytes": rng.choice([2 ** 16, 2 ** 70, -1, 0, 1.5, None, "x"]),
                                        "shape": rng.choice([[64, 64], [2 ** 62, 1], [64.5, 64], None, "64x64"]),
                                        "engine": "f2"})
    return (rng.choice(["prove.surjective", "prove.injective", "prove.invertible"]), (attr,),
            {"shape": rng.choice(BAD_VALUES + [[64, 64], [2 ** 62, 1]]), "engine": "f2"})


# ---------------------------------------------------------------- running one input

class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


_LOCATED = re.compile(r"^layoutcheck: (error|internal error): ")


def run_one(inp: dict, workdir: str) -> str | None:
    """None when the input was handled well, else what went wrong (one line)."""
    from checker.errors import MAX_MESSAGE, CheckerError
    # CPU time, not wall time: a hang spins; a loaded machine only waits
    signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, ALARM_S)
    try:
        if inp["surface"] == "api":
            return _run_api(inp["call"])
        if inp["surface"] == "run":
            return _run_program(inp, workdir)
        return _run_cli(inp, workdir, MAX_MESSAGE)
    except Hang:
        return f"hang (over {ALARM_S} s)"
    except CheckerError as e:           # only from the API path, handled there
        return f"unexpected CheckerError: {e}"
    except MemoryError:
        return "out of memory"
    except RecursionError:
        return "RecursionError"
    except BaseException as e:          # noqa: BLE001 (a traceback is what the campaign looks for)
        return f"traceback: {type(e).__name__}: {str(e)[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def _run_api(call) -> str | None:
    import checker
    from checker import prove
    from checker.errors import MAX_MESSAGE, CheckerError
    name, args, kwargs = call
    fn = checker.parse_encoding if name == "parse_encoding" else checker.lower if name == "lower" else \
        getattr(prove, name.split(".")[1])
    try:
        fn(*args, **kwargs)
    except CheckerError as e:
        return _judge_message(str(e), MAX_MESSAGE, located=e.has_location)
    return None


def _run_cli(inp: dict, workdir: str, limit: int) -> str | None:
    from checker.cli import main
    for name, data in inp["files"].items():
        path = os.path.join(workdir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    argv = list(inp["argv"])
    if argv[0] == "verify":
        argv += ["--report-dir", os.path.join(workdir, "reports")]
    out, err = io.StringIO(), io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(inp.get("stdin", b"")), encoding="utf-8")
    old_cwd, old_stdin = os.getcwd(), sys.stdin
    os.chdir(workdir)
    sys.stdin = stdin
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as e:     # argparse: its own usage line, exit 2
                rc = e.code if isinstance(e.code, int) else 2
                return None if rc == 2 else f"argparse exit {rc}"
    finally:
        os.chdir(old_cwd)
        sys.stdin = old_stdin
    if rc == 3:
        return f"exit 3: {err.getvalue().strip()[:200]}"
    if rc not in (0, 1, 2):
        return f"exit {rc}"
    if rc == 2:
        lines = err.getvalue().rstrip("\n").split("\n")
        if len(lines) != 1:
            return f"{len(lines)} lines on stderr: {lines[0][:150]}"
        message = _LOCATED.sub("", lines[0])
        names = [n for n in inp["files"]] + ["<stdin>", "argument ", "field '"]
        return _judge_message(message, limit, located=any(n in message for n in names))
    return None


_OWN_FRAME = re.compile(r'File "[^"]*[/\\]checker[/\\][^"]*\.py"')


def _run_program(inp: dict, workdir: str) -> str | None:
    """A ``run`` input as the user runs it: ``python -m checker run -- python prog.py`` in its own process
    (Triton's cache shared by the worker's inputs); judged against the input's ``expect``."""
    import subprocess
    for name, data in inp["files"].items():
        Path(workdir, name).write_bytes(data)
    env = dict(os.environ, TRITON_DEFAULT_FP_FUSION="1",
               TRITON_CACHE_DIR=os.environ.get("LAYOUTCHECK_FUZZ_TRITON_CACHE") or os.path.join(workdir, "cache"))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("LAYOUTCHECK_RUN", None)
    try:
        done = subprocess.run([sys.executable, "-m", "checker", *inp["argv"]], cwd=workdir, env=env,
                              capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        # (as from a terminal: a campaign started in the background, without job control, inherits SIGINT
        # ignored, and a program's own SIGINT would then do nothing, alone or under run)
    except subprocess.TimeoutExpired:
        return f"hang (over {RUN_TIMEOUT_S} s)"
    expect, err = inp["expect"], done.stderr
    own_failure = "RuntimeError: the program's own listener fails" in err     # raised through the session's listener
    if (_OWN_FRAME.search(err) and not own_failure) or "internal error" in err:
        return f"layoutcheck's own traceback or internal error: {err.strip().splitlines()[-1][:200]}"
    if done.returncode != expect["status"]:
        return f"exit {done.returncode}, expected {expect['status']}: {err.strip()[-200:]!r}"
    m = re.search(r"layoutcheck run: (\d+) kernels? verified", err)
    if expect["kernels"] is not None and (m is None or int(m.group(1)) != expect["kernels"]):
        return f"{m.group(1) if m else 'no'} kernels verified, expected {expect['kernels']}"
    if m and not re.search(r"(^|\n)layoutcheck run: ", err):
        return "the summary does not start on a line of its own"
    if expect["says_nothing_verified"] and "no kernel was verified" not in err:
        return "a run that verified nothing does not say so"
    calls = re.search(r"listener calls: (\d+)", err)
    if expect["listener_calls"] is not None and (calls is None or int(calls.group(1)) != expect["listener_calls"]):
        return f"the program's listener heard {calls.group(1) if calls else 'nothing'}, expected " \
               f"{expect['listener_calls']} compilations"
    return None


def _judge_message(message: str, limit: int, located: bool) -> str | None:
    if "\n" in message:
        return f"multi-line message: {message[:150]!r}"
    if len(message) > limit:
        return f"message of {len(message)} characters: {message[:150]}"
    if not located:
        return f"message without location: {message[:200]}"
    if "Traceback" in message:
        return f"traceback in message: {message[:150]}"
    return None


# ---------------------------------------------------------------- the campaign

def _rng(seed: int, i: int) -> random.Random:
    return random.Random(seed * 1_000_003 + i)


def _surface(i: int, surfaces) -> str:
    return surfaces[i % len(surfaces)]


def _worker(task) -> list:
    """Run inputs `indices` of the campaign; returns [(index, surface, problem or None, seconds)]."""
    indices, seed, surfaces, out_dir, own_process = task
    if own_process:                     # a worker of the pool: out of memory is a MemoryError, not the OOM killer
        try:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
        except (ImportError, ValueError, OSError):
            pass
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    seeds = _seeds()
    results = []
    with tempfile.TemporaryDirectory(prefix="layoutcheck-fuzz-") as tmp:
        for i in indices:
            surface = _surface(i, surfaces)
            inp = make_input(_rng(seed, i), surface, seeds)
            work = os.path.join(tmp, str(i))
            os.makedirs(work)
            t0 = time.perf_counter()
            problem = run_one(inp, work)
            results.append((i, surface, problem, time.perf_counter() - t0))
            if problem and out_dir:
                _save(out_dir, i, seed, inp, problem)
            _clear(work)
    return results


def _clear(path: str) -> None:
    import shutil
    shutil.rmtree(path, ignore_errors=True)


def _save(out_dir: str, i: int, seed: int, inp: dict, problem: str) -> None:
    d = Path(out_dir) / f"{inp['surface']}-{i}"
    d.mkdir(parents=True, exist_ok=True)
    for name, data in inp.get("files", {}).items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_bytes(data)
    if "stdin" in inp:
        (d / "stdin").write_bytes(inp["stdin"])
    (d / "README").write_text(f"{problem}\nreplay: python tools/fuzz.py --seed {seed} --only {i}\n"
                              f"argv: {inp.get('argv')!r}\ncall: {inp.get('call')!r}"[:20000] + "\n")


def campaign(count: int = 10_000, seed: int = 0, jobs: int = 2, surfaces=SURFACES, out_dir: str | None = None,
             only: list[int] | None = None) -> dict:
    """Run the campaign; returns {"inputs", "failures": [(index, surface, problem)], "by_surface", "seconds"}."""
    indices = only if only is not None else list(range(count))
    t0 = time.perf_counter()
    chunks = [indices[k::max(jobs, 1)] for k in range(max(jobs, 1))]
    tasks = [(c, seed, tuple(surfaces), out_dir, jobs > 1) for c in chunks if c]
    if jobs <= 1:
        results = [r for t in tasks for r in _worker(t)]
    else:
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(len(tasks)) as pool:
            results = [r for rs in pool.map(_worker, tasks) for r in rs]
    by_surface: dict[str, dict] = {}
    for _, surface, problem, secs in results:
        s = by_surface.setdefault(surface, {"inputs": 0, "failures": 0, "slowest_s": 0.0})
        s["inputs"] += 1
        s["failures"] += problem is not None
        s["slowest_s"] = round(max(s["slowest_s"], secs), 2)
    failures = sorted((i, surface, p) for i, surface, p, _ in results if p)
    return {"inputs": len(results), "failures": failures, "by_surface": by_surface,
            "seconds": round(time.perf_counter() - t0, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=10_000, help="inputs (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=0, help="campaign seed (default: %(default)s)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default: %(default)s)")
    ap.add_argument("--surface", action="append", choices=ALL_SURFACES,
                    help="only these surfaces (repeatable; default: all but run)")
    ap.add_argument("--only", type=int, action="append", help="replay these input indices")
    ap.add_argument("--out", help="write failing inputs under this folder (default: none)")
    args = ap.parse_args(argv)
    res = campaign(args.count, args.seed, args.jobs, tuple(args.surface or SURFACES), args.out, args.only)
    for surface, s in sorted(res["by_surface"].items()):
        print(f"{surface:9} {s['inputs']:6} inputs  {s['failures']:4} failures  slowest {s['slowest_s']} s")
    for i, surface, problem in res["failures"][:50]:
        print(f"FAIL {surface} #{i}: {problem}")
    print(f"{res['inputs']} inputs, {len(res['failures'])} failures, {res['seconds']} s (seed {args.seed})")
    return 1 if res["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
