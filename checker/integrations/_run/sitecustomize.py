"""Start-up hook of a `layoutcheck run` child (on PYTHONPATH only there): installs the compilation
listener from $LAYOUTCHECK_RUN (`checker.triton.install_from_environment`), then runs the
sitecustomize this one shadows, if any."""

import os
import sys


def _layoutcheck() -> None:
    if not os.environ.get("LAYOUTCHECK_RUN"):
        return
    try:
        from checker.integrations.triton import install_from_environment  # lazy: only in a `layoutcheck run` child
        install_from_environment()
    except Exception as e:  # never stop the program: say why its kernels are not checked
        print(f"layoutcheck: the compilation listener could not be installed: {type(e).__name__}: {e}",
              file=sys.stderr)


def _chain() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == here:
            continue
        path = os.path.join(entry, "sitecustomize.py")
        if os.path.isfile(path):
            with open(path) as f:
                code = compile(f.read(), path, "exec")
            exec(code, {"__name__": "sitecustomize", "__file__": path})
            return


_chain()
_layoutcheck()
