"""matches_triton(E, shape): layoutcheck's lowering of an encoding is the installed Triton's.

Definition. E is lowered twice at `shape`: by layoutcheck (`checker.encodings.lower`) and by the
installed Triton's C++ (``triton::gpu::toLinearLayout``, reached from Python as
tools/triton_oracle.py does it). The check holds when both give the same input dimensions, the
same bases for each, the same output dimensions and the same output sizes, bit for bit:

    layoutcheck(E, shape).bases == triton(E, shape).bases  and  out sizes agree.

How Triton is asked. A one-function module whose argument has E's type (``tensor<SHAPExT, E>`` or
``!ttg.memdesc<SHAPExT, E, #ttg.shared_memory, mutable>``; E as layoutcheck prints it, so the
printer is checked too) is parsed by Triton's MLIR parser with every dialect loaded; Triton's
``get_gluon_layout_from_tensor`` / ``_from_memdesc`` reads the argument's encoding back, and
``GluonOpBuilder.to_linear_layout`` lowers it. The module attributes carry the kernel's
``ttg.target``, warps, lanes and CTAs. A static property: no engines, no counterexample; a
difference is an error whose explanation shows both bases. An encoding Triton cannot read back or
has no LinearLayout for (padded, rotating shared) is not modelled: the check is skipped with
Triton's reason.

Needs Triton (``pip install triton==3.9.0``); `require_triton` says so in one line.
"""

from __future__ import annotations

import os
import tempfile
from functools import lru_cache
from typing import Any

from .. import about
from ..encodings import lower
from ..errors import CheckerError, NotModelled
from ..padded import linear_part
from ..syntax.mlir_attr import print_attribute
from ..versions import TritonVersion, supported_text
from ..versions import parse as parse_version
from .result import Result

NAME = "matches_triton"
INSTALL = "pip install triton==3.9.0"


def require_triton(what: str) -> str:
    """The installed Triton's version, or a `CheckerError` (exit 2) saying that `what` needs it."""
    try:
        import triton  # lazy: Triton is optional, needed only to compare with it
    except ImportError:
        raise CheckerError(f"{what} needs Triton, which is not installed ({INSTALL})") from None
    return triton.__version__


def require_lowering_triton(what: str) -> str:
    """The installed Triton's version when it can lower layouts from Python (`GluonOpBuilder.to_linear_layout`,
    Triton 3.6 and later), else a `CheckerError` (exit 2) saying that `what` cannot use it."""
    version = require_triton(what)
    try:
        modelled = parse_version(version)
    except CheckerError:
        raise CheckerError(f"{what} needs a Triton layoutcheck models ({supported_text()}); the installed one is "
                           f"{version}") from None
    if modelled < TritonVersion(3, 6):
        raise CheckerError(f"{what} asks the installed Triton {version} for its lowering, and Triton before 3.6 has no "
                           "Python route to it (GluonOpBuilder.to_linear_layout); tools/version_oracle.py asks its C++ "
                           "directly: run it with that Triton's Python") from None
    return version


def triton_version() -> str | None:
    """The installed Triton's version, or None (Triton is not imported when it is not already loaded
    or installed)."""
    try:
        from importlib.metadata import PackageNotFoundError, version
        return version("triton")
    except PackageNotFoundError:
        return None


class _Bridge:
    """One MLIR context with Triton's dialects and a Gluon builder, per process."""

    def __init__(self, folder: str | None = None) -> None:
        """`folder`: where the one-function modules are written for Triton's parser (which reads a file);
        the worker's own folder (`_Worker`), which its parent removes however the child ends."""
        self.folder = folder
        # lazy: Triton is optional, imported only to compare with it (once per process)
        import triton._C.libtriton as lt
        import triton.experimental.gluon.language  # noqa: F401  (the layout classes Triton returns)
        from triton._C.libtriton import gluon_ir, ir
        self.ir = ir
        self.ctx = ir.context()
        ir.load_dialects(self.ctx)
        for backend in ("nvidia", "amd"):
            mod = getattr(lt, backend, None)
            if mod is not None and hasattr(mod, "load_dialects"):
                mod.load_dialects(self.ctx)
        self.b = gluon_ir.GluonOpBuilder(self.ctx)
        self.keep: list = []            # parsed modules stay alive with their context

    def lower(self, type_text: str, shared: bool, shape: tuple[int, ...], module_attrs: str) -> dict:
        text = (f"module attributes {{{module_attrs}}} {{\n"
                f"  tt.func public @layoutcheck_probe(%arg0: {type_text}) {{\n    tt.return\n  }}\n}}\n")
        fd, path = tempfile.mkstemp(suffix=".mlir", prefix="layoutcheck-", dir=self.folder)
        try:
            with os.fdopen(fd, "w") as f:
                f.write(text)
            module = self.ir.parse_mlir_module(path, self.ctx)
        except Exception as e:      # Triton's parser rejects the text: say why
            raise NotModelled(f"Triton does not parse {type_text}: {str(e).splitlines()[0] if str(e) else e}") from None
        finally:
            os.unlink(path)
        self.keep.append(module)
        arg = module.get_function("layoutcheck_probe").args(0)
        try:
            layout = (self.b.get_gluon_layout_from_memdesc(arg) if shared
                      else self.b.get_gluon_layout_from_tensor(arg))
            ll = self.b.to_linear_layout(layout._to_ir(self.b), list(shape))
        except Exception as e:
            raise NotModelled(f"Triton has no LinearLayout for it here ({type(e).__name__}: "
                              f"{str(e).splitlines()[0] if str(e) else ''})") from None
        if hasattr(ll, "offset_bases"):
            return {"offset": _lists(ll.offset_bases), "block": _lists(ll.block_bases), "shape": list(ll.shape)}
        return {"register": _lists(ll.reg_bases), "lane": _lists(ll.lane_bases), "warp": _lists(ll.warp_bases),
                "block": _lists(ll.block_bases), "shape": list(ll.shape)}


def _lists(bases) -> list[list[int]]:
    return [list(map(int, b)) for b in bases]


class _Worker:
    """A child process that owns Triton's MLIR context and answers one lowering per line of JSON: an
    abort inside Triton (its parser aborts on some gfx1250 WMMA layouts) ends the child, not the caller,
    and Triton's objects die with it (nanobind reports them as leaked when an interpreter holding them
    exits). The child's stderr goes to /dev/null. The child writes the modules it parses into a folder of
    its own, which the child removes when its input ends, and this side when the child aborts (leaving the
    module it was parsing)."""

    def __init__(self) -> None:
        import subprocess
        import sys
        self.pid = os.getpid()          # a forked runner worker starts its own child
        self.folder = tempfile.mkdtemp(prefix="layoutcheck-triton-")
        self.proc = subprocess.Popen([sys.executable, "-m", __name__, self.folder], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def ask(self, request: dict) -> dict:
        import json
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            code = self.proc.wait()
            self._remove_folder()
            _WORKER.clear()
            raise NotModelled(f"Triton aborted on it (exit status {code})")
        return json.loads(line)

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
        self._remove_folder()

    def _remove_folder(self) -> None:
        import shutil
        shutil.rmtree(self.folder, ignore_errors=True)


_WORKER: list[_Worker] = []


def _worker() -> _Worker:
    if _WORKER and _WORKER[0].pid != os.getpid():
        _WORKER.clear()
    if not _WORKER:
        require_lowering_triton("matches_triton (--differential)")
        import atexit
        _WORKER.append(_Worker())
        atexit.register(_close)
    return _WORKER[0]


def _close() -> None:
    while _WORKER:
        _WORKER.pop().close()


def serve() -> None:
    """The child's loop (`_Worker`): one request per line, one answer per line."""
    import json
    import sys
    folder = sys.argv[1] if len(sys.argv) > 1 else None
    bridge = _Bridge(folder)
    for line in sys.stdin:
        req = json.loads(line)
        try:
            out = {"ok": bridge.lower(req["type"], req["shared"], tuple(req["shape"]), req["attrs"])}
        except NotModelled as e:
            out = {"not_modelled": e.message}
        except Exception as e:
            out = {"not_modelled": f"Triton raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    if folder:              # the parent is gone or done (a forked runner worker ends without closing it)
        import shutil
        shutil.rmtree(folder, ignore_errors=True)


@lru_cache(maxsize=4096)
def triton_lowering(attr_text: str, shared: bool, shape: tuple[int, ...], element_type: str,
                    module_attrs: str) -> dict:
    """Triton's LinearLayout of an encoding (its attribute text) at `shape`, as
    ``{in_dim: bases, ..., "shape": out sizes}``."""
    dims = "x".join(map(str, shape))
    type_text = (f"!ttg.memdesc<{dims}x{element_type}, {attr_text}, #ttg.shared_memory, mutable>" if shared
                 else f"tensor<{dims}x{element_type}, {attr_text}>")
    answer = _worker().ask({"type": type_text, "shared": shared, "shape": list(shape), "attrs": module_attrs})
    if "ok" not in answer:
        raise NotModelled(answer["not_modelled"])
    return answer["ok"]


def layoutcheck_lowering(enc, shape) -> dict:
    """layoutcheck's lowering in the same form (a padded layout's linear component)."""
    L = linear_part(lower(enc, list(shape)))
    out = {d: [list(b) for b in L.in_bases(d)] for d in L.in_dims}
    out["shape"] = [s for _, s in L.out_dim_sizes]
    return out


def module_attributes(target: str | None, warps: int | None, lanes: int | None, ctas: int | None) -> str:
    parts = []
    if ctas:
        parts.append(f'"ttg.num-ctas" = {ctas} : i32')
    if warps:
        parts.append(f'"ttg.num-warps" = {warps} : i32')
    if target:
        parts.append(f'ttg.target = "{target}"')
    if lanes:
        parts.append(f'"ttg.threads-per-warp" = {lanes} : i32')
    return ", ".join(parts)


def _release(version: str) -> tuple[int, int] | None:
    """(major, minor) of an installed Triton's version text, None when it is none layoutcheck models."""
    try:
        return tuple(parse_version(version))                # type: ignore[return-value]
    except CheckerError:
        return None


def _sized(lowered: dict) -> dict:
    return {k: v for k, v in lowered.items() if k == "shape" or v}


def show_bases(lowered: dict) -> str:
    """'register=[[0, 1], [0, 2]] lane=[...] ... shape=[64, 64]'."""
    return " ".join(f"{k}={v}" for k, v in lowered.items())


def matches_triton(enc, shape, *, element_type: str = "f16", target: str | None = None, warps: int | None = None,
                   lanes: int | None = None, ctas: int | None = None, lowering=None) -> Result:
    """Compare layoutcheck's lowering (`lowering`: the function to use, layoutcheck's by default) with
    Triton's; the details carry both, the explanation both when they differ."""
    shape = tuple(shape)
    ours = (lowering or layoutcheck_lowering)(enc, shape)
    text = print_attribute(enc)
    version = triton_version()
    if enc.is_shared and version and _release(version) == (3, 6):
        raise NotModelled(f"Triton {version}'s to_linear_layout aborts on shared layouts (it wraps them in a "
                          "distributed LinearEncodingAttr; fixed in 3.7)")
    theirs = triton_lowering(text, bool(enc.is_shared), shape, element_type,
                             module_attributes(target, warps, lanes, ctas))
    details: dict[str, Any] = {"triton_version": version, "layoutcheck_version": about.version(),
                               "layoutcheck": ours, "triton": theirs}
    if _sized(ours) == _sized(theirs):     # an in-dim of size 1 is no index (Triton <= 3.7's TMEM has no block)
        return Result(NAME, "holds", {}, None, f"the bases are Triton {version}'s, bit for bit", details)
    differ = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
    explanation = (f"layoutcheck and Triton {version} lower {text} at {list(shape)} differently "
                   f"(in {', '.join(differ)}): layoutcheck: {show_bases(ours)}; Triton: {show_bases(theirs)}")
    return Result(NAME, "fails", {}, None, explanation, details)


def decide(check) -> Result:
    """The registry's decide: one `Check` of matches_triton."""
    p = check.param
    return matches_triton(check.operand("layout"), check.shape, element_type=p("element_type") or "f16",
                          target=p("target"), warps=p("num_warps"), lanes=p("threads_per_warp"),
                          ctas=p("num_ctas"))


if __name__ == "__main__":
    serve()
