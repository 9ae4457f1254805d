"""Z3's shared library through ctypes, for the command session of `checker.smt` alone.

Almost every obligation of a run is decided in Z3's SMT-LIB2 command interpreter
(`smt._Session`), which needs six C functions: make a context, evaluate commands
in it, read its error, delete it, and get or set a global parameter. Importing the
``z3`` package for them costs a process about 18 ms more than loading the library
(``z3.z3core`` declares the prototypes of about a thousand C functions when it is
imported, ``z3.z3`` builds its classes; measured on a 2-core machine, 27 against
9 ms to a first evaluated command), a sixth of what ``layoutcheck verify`` takes on
a small kernel. So the session binds the library itself; the ``z3`` package is
imported only where its Python API is used (the timed fallback of
`smt.Obligation.solve`, `smt.check_smtlib`).

The library is the one the z3-solver package ships (``z3/lib/libz3.so``, ``.dylib``
or ``.dll``), found without importing the package; where it is not there (a Z3 the
package finds elsewhere, through ``Z3_LIBRARY_PATH``, the system's library path and
the like) the session makes the same calls through the package (`_ThroughPackage`).
Loading the same file twice gives the same library, so the global parameters
(``rlimit``, ``ctrl_c``) are the ones the package sees; the prototypes are set on a
`ctypes.CDLL` of our own, never on the package's.

Errors: the context gets no error handler (a null one), so Z3 records an error and
returns instead of exiting the process; `Library.eval` reads the error code after
each call and raises `Z3Error` with Z3's message, as the package's wrappers raise
``Z3Exception``.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
import sys

from .errors import CheckerError


class Z3Error(Exception):
    """A Z3 call reported an error (its message)."""


def _library_path() -> str | None:
    """The shared library of the installed z3-solver package, or None when the package has none in ``lib/``."""
    spec = importlib.util.find_spec("z3")
    if spec is None or not spec.submodule_search_locations:
        return None
    ext = "dll" if sys.platform in ("win32", "cygwin") else "dylib" if sys.platform == "darwin" else "so"
    for folder in spec.submodule_search_locations:
        path = os.path.join(folder, "lib", f"libz3.{ext}")
        if os.path.isfile(path):
            return path
    return None


@functools.cache
def installed() -> bool:
    """Whether the z3-solver package can be imported (looked up once; the package is not imported)."""
    return importlib.util.find_spec("z3") is not None


def require_z3(engine: str) -> None:
    """Raise the one-line `CheckerError` of a missing Z3 for an engine choice that runs it ("z3", "both",
    "all"): z3-solver is a dependency of layoutcheck, but a checkout used from a Python that lacks it would
    otherwise fail every check with an internal error."""
    if engine != "f2" and not installed():
        raise CheckerError(f"--engine {engine} needs Z3 (the z3-solver package), which is not installed: "
                           "pip install z3-solver, or --engine f2", field="engine")


class Library:
    """The few Z3 C functions the command session calls, with their prototypes."""

    def __init__(self, lib: ctypes.CDLL):
        p, s = ctypes.c_void_p, ctypes.c_char_p
        lib.Z3_mk_config.restype = p
        lib.Z3_mk_config.argtypes = []
        lib.Z3_del_config.restype = None
        lib.Z3_del_config.argtypes = [p]
        lib.Z3_mk_context_rc.restype = p
        lib.Z3_mk_context_rc.argtypes = [p]
        lib.Z3_del_context.restype = None
        lib.Z3_del_context.argtypes = [p]
        lib.Z3_set_error_handler.restype = None
        lib.Z3_set_error_handler.argtypes = [p, p]
        lib.Z3_eval_smtlib2_string.restype = s
        lib.Z3_eval_smtlib2_string.argtypes = [p, s]
        lib.Z3_get_error_code.restype = ctypes.c_uint
        lib.Z3_get_error_code.argtypes = [p]
        lib.Z3_get_error_msg.restype = s
        lib.Z3_get_error_msg.argtypes = [p, ctypes.c_uint]
        lib.Z3_global_param_set.restype = None
        lib.Z3_global_param_set.argtypes = [s, s]
        lib.Z3_global_param_get.restype = ctypes.c_bool
        lib.Z3_global_param_get.argtypes = [s, ctypes.POINTER(s)]
        self._lib = lib

    def new_context(self) -> int:
        """A fresh reference-counted context with no error handler (errors are read back by `eval`)."""
        lib = self._lib
        config = lib.Z3_mk_config()
        try:
            ctx = lib.Z3_mk_context_rc(config)
        finally:
            lib.Z3_del_config(config)
        if not ctx:
            raise Z3Error("Z3 could not make a context")
        lib.Z3_set_error_handler(ctx, None)
        return int(ctx)

    def delete_context(self, ctx: int) -> None:
        self._lib.Z3_del_context(ctx)

    def eval(self, ctx: int, commands: str) -> str:
        """Evaluate SMT-LIB2 commands in the context's command interpreter: what they print."""
        out = self._lib.Z3_eval_smtlib2_string(ctx, commands.encode())
        code = self._lib.Z3_get_error_code(ctx)
        if code:
            message = self._lib.Z3_get_error_msg(ctx, code)
            raise Z3Error(message.decode(errors="replace") if message else f"Z3 error {code}")
        return out.decode() if out else ""

    def get_param(self, name: str) -> str | None:
        """A global parameter's value, None when Z3 has none by that name."""
        value = ctypes.c_char_p()
        if not self._lib.Z3_global_param_get(name.encode(), ctypes.byref(value)):
            return None
        return value.value.decode() if value.value is not None else None

    def set_param(self, name: str, value: str) -> None:
        self._lib.Z3_global_param_set(name.encode(), value.encode())


class _ThroughPackage:
    """`Library`'s calls made by the z3 package, where its library is not beside it: the package's own search
    found it, and its wrappers call it (contexts are the package's, kept here by their address)."""

    def __init__(self) -> None:
        import z3  # type: ignore[import-untyped]  # lazy: only where the package keeps its library elsewhere
        self._z3 = z3
        self._contexts: dict[int, object] = {}

    def new_context(self) -> int:
        context = self._z3.Context()
        ref = int(context.ref().value)
        self._contexts[ref] = context
        return ref

    def delete_context(self, ctx: int) -> None:
        self._contexts.pop(ctx, None)

    def eval(self, ctx: int, commands: str) -> str:
        try:
            return str(self._z3.z3core.Z3_eval_smtlib2_string(self._contexts[ctx].ref(), commands))  # type: ignore[attr-defined]
        except self._z3.Z3Exception as e:
            raise Z3Error(str(e.value.decode(errors="replace") if isinstance(e.value, bytes) else e.value)) from None

    def get_param(self, name: str) -> str | None:
        try:
            return str(self._z3.get_param(name))
        except self._z3.Z3Exception:
            return None

    def set_param(self, name: str, value: str) -> None:
        self._z3.set_param(name, value)


_LIBRARY: Library | _ThroughPackage | None = None


def library() -> Library | _ThroughPackage:
    """The library, loaded on first use: Z3 would take SIGINT over while it works (its own handler cancels the
    call and the run goes on, a Ctrl-C lost), so ``ctrl_c`` is turned off before any call, as `smt` does for
    the package; the interrupt then waits for the call to return and stops the run (exit 130)."""
    global _LIBRARY
    if _LIBRARY is None:
        path = _library_path()
        loaded = Library(ctypes.CDLL(path)) if path is not None else _ThroughPackage()
        loaded.set_param("ctrl_c", "false")
        _LIBRARY = loaded
    return _LIBRARY
