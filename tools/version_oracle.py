"""Version oracle: ask one installed Triton (3.5 ... 3.9, CPU build is enough) for its LinearLayout lowering.

    <python with triton==X> tools/version_oracle.py lower [--route auto|ctypes|gluon|both] < cases.jsonl > out.jsonl

One case per input line: ``{"attr": "<attribute text in that version's syntax>", "shape": [..], "memdesc": bool}``
(optional: ``"elem"``, the element type, ``f16`` by default; ``"module"``, module attribute text; any other key
is copied through). One answer per case, in order: the case plus ``"version"``, ``"route"`` and either
``"ll"`` = ``{"register": [[..]], "lane": .., "warp": .., "block": .., "shape": [..]}`` (distributed) or
``{"offset": .., "block": .., "shape": ..}`` (shared) -- in-dimension names exactly as Triton's LinearLayout
has them -- or ``"error"``: ``"parse: <diagnostic>"`` (the parser or verifier rejected the text),
``"lower: <message>"`` (an exception while lowering) or ``"crash: <signal> <stderr tail>"`` (Triton aborted).

How Triton is asked. The case becomes a one-function module whose argument has the type
``tensor<SHAPExELEM, ATTR>`` or ``!ttg.memdesc<SHAPExELEM, ATTR, #ttg.shared_memory, mutable>``
(``#ttng.tensor_memory`` for tensor-memory encodings). The version's own ``ir.parse_mlir_module`` parses
and verifies it (its diagnostics, written to fd 2, are captured as the parse error). Then one of two routes:

* ``ctypes`` (the only route for 3.5, which has no ``GluonOpBuilder.to_linear_layout``): every Triton
  wheel keeps its full ELF ``.symtab`` (``nm libtriton.so``; most C++ symbols are local, not in the dynamic
  table). The library's load address is ``&PyInit_libtriton`` (exported) minus its symtab value; a symbol's
  address is that base plus its symtab value. Called through ctypes with the x86-64 SysV / Itanium ABI:
    - ``mlir::RankedTensorType::getEncoding() const`` / ``mlir::triton::gpu::MemDescType::getEncoding() const``
      (``this`` = pointer to the one-word type value; an ``mlir::Attribute`` is one pointer, returned in rax);
    - ``mlir::triton::gpu::toLinearLayout(llvm::ArrayRef<int64_t>, mlir::Attribute)`` -- the function that
      ``GluonOpBuilder.to_linear_layout`` wraps in 3.6+ -- returns a non-trivial ``LinearLayout`` through a
      hidden sret pointer (rdi); the ArrayRef {data, size} goes in rsi/rdx, the Attribute in rcx;
    - ``mlir::triton::LinearLayout::toString() const`` (sret ``std::string``, cxx11 ABI: data pointer, size),
      whose text (`` - register=1 -> (0, 1)`` ..., ``where out dims are: [dim0 (size 16), ...]``) is parsed.
  The type value comes out of the Python object ``arg.get_type()``: pybind11 (3.5-3.8) keeps a pointer to
  the heap copy right after the PyObject header; nanobind (3.9) keeps it inline at the instance's offset.
  Sret buffers are never destroyed (a few hundred bytes leaked per case).
* ``gluon`` (3.6+): ``GluonOpBuilder.get_gluon_layout_from_tensor`` / ``_from_memdesc`` reads the parsed
  argument's encoding back as a Gluon layout object, ``_to_ir`` rebuilds the attribute and
  ``GluonOpBuilder.to_linear_layout(attr, shape)`` lowers it (as tools/triton_oracle.py does for 3.9).

A case carrying ``"inexpressible"`` (tools/version_cases.py found no spelling of it for this version) is
answered ``"error": "inexpressible: ..."`` without asking Triton.

``auto`` = gluon where ``to_linear_layout`` exists, else ctypes. ``both`` runs both, reports the auto route's
answer and adds ``"routes_agree": bool`` (and the other answer as ``"other"`` when they differ) -- the
check that the ctypes route is faithful.

Isolation: the cases are answered by a long-lived child process (this file, mode ``serve``); when Triton
aborts the child dies, the case is recorded as ``crash`` with the tail of the child's stderr, and a fresh
child takes the next case.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

TIMEOUT_S = 120


# ============================================================== child: talks to Triton

class _Native:
    """The C++ functions of libtriton.so reached through ctypes."""

    NAMES = {
        "init": "PyInit_libtriton",
        "to_ll": "_ZN4mlir6triton3gpu14toLinearLayoutEN4llvm8ArrayRefIlEENS_9AttributeE",
        "tensor_enc": "_ZNK4mlir16RankedTensorType11getEncodingEv",
        "memdesc_enc": "_ZNK4mlir6triton3gpu11MemDescType11getEncodingEv",
        "to_string": "_ZNK4mlir6triton12LinearLayout8toStringB5cxx11Ev",
    }

    def __init__(self, so_path: str):
        import ctypes
        self.c = ctypes
        wanted = {v: k for k, v in self.NAMES.items()}
        found: dict[str, int] = {}
        st = os.stat(so_path)
        cache = os.path.join(tempfile.gettempdir(), f"version-oracle-syms-{st.st_size}-{int(st.st_mtime)}.json")
        try:
            with open(cache) as f:
                found = json.load(f)
        except (OSError, ValueError):
            listing = subprocess.run(["nm", so_path], capture_output=True, text=True, check=True).stdout
            for line in listing.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[2] in wanted:
                    found[wanted[parts[2]]] = int(parts[0], 16)
            with open(cache + ".tmp", "w") as f:
                json.dump(found, f)
            os.replace(cache + ".tmp", cache)
        missing = sorted(set(self.NAMES) - set(found))
        if missing:
            raise RuntimeError(f"symbols not in {so_path}: {missing}")
        lib = ctypes.CDLL(so_path)
        base = ctypes.cast(lib.PyInit_libtriton, ctypes.c_void_p).value - found["init"]
        vp, sz = ctypes.c_void_p, ctypes.c_size_t
        self.to_ll = ctypes.CFUNCTYPE(None, vp, vp, sz, vp)(base + found["to_ll"])
        self.tensor_enc = ctypes.CFUNCTYPE(vp, vp)(base + found["tensor_enc"])
        self.memdesc_enc = ctypes.CFUNCTYPE(vp, vp)(base + found["memdesc_enc"])
        self.to_string = ctypes.CFUNCTYPE(None, vp, vp)(base + found["to_string"])

    def type_impl(self, obj) -> int:
        """The mlir::Type (one pointer) held by a pybind11 or nanobind Python object."""
        c = self.c
        addr = id(obj)
        if "nanobind" in type(type(obj)).__module__ or "nb_" in type(type(obj)).__name__:
            offset = c.c_int32.from_address(addr + 16).value
            flags = c.c_uint32.from_address(addr + 20).value
            direct = (flags >> 2) & 1
            data = addr + offset if direct else c.c_void_p.from_address(addr + offset).value
        else:                                   # pybind11 simple layout: value pointer after the header
            data = c.c_void_p.from_address(addr + 16).value
        return c.c_void_p.from_address(data).value

    def lower(self, type_obj, shape: list[int], memdesc: bool) -> str:
        c = self.c
        impl = c.c_void_p(self.type_impl(type_obj))
        attr = (self.memdesc_enc if memdesc else self.tensor_enc)(c.byref(impl))
        if not attr:
            raise RuntimeError("the type has no encoding")
        dims = (c.c_int64 * max(1, len(shape)))(*shape)
        ll = c.create_string_buffer(4096)          # sizeof(LinearLayout) is far smaller
        self.to_ll(c.addressof(ll), c.addressof(dims), len(shape), attr)
        s = c.create_string_buffer(64)
        self.to_string(c.addressof(s), c.addressof(ll))
        ptr = c.c_void_p.from_buffer(s, 0).value
        n = c.c_size_t.from_buffer(s, 8).value
        return c.string_at(ptr, n).decode()


_LINE = re.compile(r"^\s*(?:- )?(\w+)=(\d+) -> \(([^)]*)\)\s*$")
_EMPTY = re.compile(r"^\s*(?:- )?(\w+) is a size 1 dimension\s*$")
_OUT = re.compile(r"(\w+) \(size (\d+)\)")


def parse_ll_string(text: str) -> dict:
    """LinearLayout::toString text -> {in_dim: bases, ..., "shape": out sizes}."""
    out: dict = {}
    shape = None
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _LINE.match(line)
        if m:
            name, idx = m.group(1), int(m.group(2))
            bases = out.setdefault(name, [])
            if idx != 1 << len(bases):
                raise ValueError(f"unexpected basis index in {line!r}")
            bases.append([int(x) for x in m.group(3).split(",") if x.strip()])
            continue
        m = _EMPTY.match(line)
        if m:
            out.setdefault(m.group(1), [])
            continue
        if line.startswith("where out dims are:"):
            shape = [int(s) for _, s in _OUT.findall(line)]
            continue
        raise ValueError(f"unparsed LinearLayout line {line!r}")
    if shape is None:
        raise ValueError("no out dims in LinearLayout text")
    out["shape"] = shape
    return out


class _Child:
    def __init__(self, route: str):
        import triton
        import triton._C.libtriton as lt
        from triton._C.libtriton import ir
        self.version = triton.__version__
        self.ir = ir
        self.ctx = ir.context()
        ir.load_dialects(self.ctx)
        for backend in ("nvidia", "amd"):
            mod = getattr(lt, backend, None)
            if mod is not None and hasattr(mod, "load_dialects"):
                mod.load_dialects(self.ctx)
        self.builder = None
        try:
            import triton.experimental.gluon.language  # noqa: F401  (Gluon's layout classes)
            from triton._C.libtriton import gluon_ir
            self.builder = gluon_ir.GluonOpBuilder(self.ctx)
        except Exception:
            pass
        has_gluon = self.builder is not None and hasattr(self.builder, "to_linear_layout")
        self.route = route if route != "auto" else ("gluon" if has_gluon else "ctypes")
        if route == "both":
            self.route = "gluon" if has_gluon else "ctypes"
        self.both = route == "both"
        self.native = _Native(lt.__file__) if (self.route == "ctypes" or self.both) else None
        self.keep: list = []

    # ---- parse with the diagnostics captured
    def parse(self, type_text: str, module_attrs: str):
        attrs = f" attributes {{{module_attrs}}}" if module_attrs else ""
        text = f"module{attrs} {{\n  tt.func public @probe(%arg0: {type_text}) {{\n    tt.return\n  }}\n}}\n"
        fd, path = tempfile.mkstemp(suffix=".mlir", prefix="version-oracle-")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        err_fd, err_path = tempfile.mkstemp(prefix="version-oracle-err-")
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(err_fd, 2)
        try:
            module = self.ir.parse_mlir_module(path, self.ctx)
            problem = None
        except Exception as e:
            module, problem = None, str(e)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            os.close(err_fd)
            with open(err_path, errors="replace") as f:
                diag = f.read()
            os.unlink(err_path)
            os.unlink(path)
        if module is None:
            lines = [ln.strip() for ln in diag.splitlines() if "error:" in ln] or [problem or "parse failed"]
            raise _ParseError(" | ".join(_strip_loc(x) for x in lines)[:600])
        self.keep.append(module)
        return module.get_function("probe").args(0)

    def via_ctypes(self, arg, shape, memdesc) -> dict:
        return parse_ll_string(self.native.lower(arg.get_type(), list(shape), memdesc))

    def via_gluon(self, arg, shape, memdesc) -> dict:
        b = self.builder
        layout = b.get_gluon_layout_from_memdesc(arg) if memdesc else b.get_gluon_layout_from_tensor(arg)
        ll = b.to_linear_layout(layout._to_ir(b), list(shape))
        lists = lambda bases: [list(map(int, v)) for v in bases]  # noqa: E731
        if hasattr(ll, "offset_bases"):
            return {"offset": lists(ll.offset_bases), "block": lists(ll.block_bases), "shape": list(ll.shape)}
        if hasattr(ll, "reg_bases"):
            return {"register": lists(ll.reg_bases), "lane": lists(ll.lane_bases), "warp": lists(ll.warp_bases),
                    "block": lists(ll.block_bases), "shape": list(ll.shape)}
        raise RuntimeError(f"to_linear_layout returned {type(ll).__name__}")

    def answer(self, case: dict) -> dict:
        shape = [int(x) for x in case["shape"]]
        elem = case.get("elem", "f16")
        dims = "x".join([*map(str, shape), elem])
        attr = case["attr"]
        if case.get("memdesc"):
            space = "#ttng.tensor_memory" if "tensor_memory" in attr else "#ttg.shared_memory"
            type_text = f"!ttg.memdesc<{dims}, {attr}, {space}, mutable>"
        else:
            type_text = f"tensor<{dims}, {attr}>"
        try:
            arg = self.parse(type_text, case.get("module", ""))
        except _ParseError as e:
            return {"error": f"parse: {e}"}
        out = {"route": self.route}
        try:
            out["printed"] = _attr_of(str(arg.get_type()))
        except Exception:
            pass
        first = self._run(self.route, arg, shape, bool(case.get("memdesc")))
        out.update(first)
        if self.both and self.route != "ctypes":
            second = self._run("ctypes", arg, shape, bool(case.get("memdesc")))
            out["routes_agree"] = second == first
            if second != first:
                out["other"] = {"route": "ctypes", **second}
        return out

    def _run(self, route, arg, shape, memdesc) -> dict:
        try:
            fn = self.via_gluon if route == "gluon" else self.via_ctypes
            return {"ll": fn(arg, shape, memdesc)}
        except Exception as e:
            msg = str(e).splitlines()[0] if str(e) else ""
            return {"error": f"lower: {type(e).__name__}: {msg}"[:600]}


def _attr_of(type_text: str) -> str:
    """The encoding attribute inside a printed tensor/memdesc type (the first `#...<...>` group)."""
    start = type_text.index("#")
    depth = 0
    for i in range(start, len(type_text)):
        if type_text[i] == "<":
            depth += 1
        elif type_text[i] == ">":
            depth -= 1
            if depth == 0:
                return type_text[start:i + 1]
    return type_text[start:]


class _ParseError(Exception):
    pass


def _strip_loc(line: str) -> str:
    return re.sub(r"^.*?error: ", "", line)


def serve(route: str) -> None:
    out = sys.stdout
    child = _Child(route)
    out.write(json.dumps({"ready": child.version}) + "\n")
    out.flush()
    for line in sys.stdin:
        case = json.loads(line)
        res = child.answer(case)
        res["version"] = child.version
        out.write(json.dumps(res) + "\n")
        out.flush()


# ============================================================== parent: isolation

class _Worker:
    def __init__(self, route: str):
        self.route = route
        self.err = tempfile.TemporaryFile(mode="w+b")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "serve", "--route", route],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True,
                                     bufsize=1)
        hello = self.proc.stdout.readline()
        if not hello:
            raise RuntimeError(f"the oracle child did not start: {self.stderr_tail(2000)}")
        self.version = json.loads(hello)["ready"]

    def stderr_tail(self, n=300) -> str:
        self.err.flush()
        self.err.seek(0, 2)
        size = self.err.tell()
        self.err.seek(max(0, size - n))
        return self.err.read().decode(errors="replace").strip().replace("\n", " | ")

    def ask(self, case: dict) -> dict | None:
        import select
        try:
            self.err.seek(0)
            self.err.truncate()
            self.proc.stdin.write(json.dumps(case) + "\n")
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT_S)
            line = self.proc.stdout.readline() if ready else ""
        except (BrokenPipeError, OSError):
            line = ""
        return json.loads(line) if line else None

    def dead(self) -> str:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
            return f"crash: timeout after {TIMEOUT_S}s"
        what = f"signal {-code}" if code < 0 else f"exit {code}"
        return f"crash: {what}: {self.stderr_tail()}"[:600]

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except Exception:
            self.proc.kill()


def lower_all(route: str, src, dst) -> None:
    worker = _Worker(route)
    for line in src:
        if not line.strip():
            continue
        case = json.loads(line)
        if case.get("inexpressible"):       # tools/version_cases.py found no spelling for this version
            rec = dict(case)
            rec.update({"error": f"inexpressible: {case['inexpressible']}", "version": worker.version})
            dst.write(json.dumps(rec) + "\n")
            continue
        res = worker.ask(case)
        if res is None:
            res = {"error": worker.dead(), "version": worker.version}
            worker = _Worker(route)
        rec = dict(case)
        rec.update(res)
        dst.write(json.dumps(rec) + "\n")
        dst.flush()
    worker.close()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["lower", "serve"])
    ap.add_argument("--route", choices=["auto", "ctypes", "gluon", "both"], default="auto")
    args = ap.parse_args(argv)
    if args.mode == "serve":
        serve(args.route)
    else:
        lower_all(args.route, sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
