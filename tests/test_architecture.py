"""The stages of checker/ import one way (docs/architecture.md): a module imports only modules of its own stage or
of earlier ones, at module level or inside a function alike, and no two modules import each other through any
chain. The tests read the source with `ast` (nothing is imported), and the last two show that the rule catches an
upward import and a cycle."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "checker"

# Earliest first. A module belongs to the stage of the longest prefix that names it; `checker` itself (the
# package's public API, `import checker`) is the last stage.
STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("checker.errors", "checker.limits", "checker.versions", "checker.about", "checker.dtypes",
                    "checker.schema", "checker.memo")),
    ("f2", ("checker.f2",)),
    ("layout", ("checker.layout",)),
    ("padded", ("checker.padded",)),
    ("encodings", ("checker.encodings",)),
    ("hardware", ("checker.hardware",)),
    ("syntax", ("checker.syntax",)),
    ("smt", ("checker.verdict", "checker.certificate", "checker.z3lib", "checker.smt", "checker.solvers")),
    ("properties", ("checker.properties", "checker.synthesis", "checker.registry")),
    ("prove", ("checker.prove",)),
    ("checks", ("checker.spec", "checker.ttgir")),
    ("run", ("checker.run",)),
    ("reports", ("checker.reports",)),
    ("interfaces", ("checker.api", "checker.cli", "checker.integrations", "checker.triton", "checker.__main__",
                    "checker")),
)


def stage_of(module: str) -> int | None:
    """The index in `STAGES` of the stage holding `module` (None: no stage names it)."""
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(STAGES):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return best[0] if best else None


def read_sources(root: pathlib.Path = ROOT) -> dict[str, tuple[str, bool]]:
    """module name -> (source text, is a package's __init__) for every .py file under checker/."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path.read_text(encoding="utf-8"), package)
    return out


def imports(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """module -> the checker modules it imports anywhere in its text (`from x import y` counts as importing
    the module x.y where one exists, else x)."""
    found: dict[str, set[str]] = {}
    for name, (text, package) in sources.items():
        here = name.split(".") if package else name.split(".")[:-1]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here[:len(here) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                candidates = [f"{base}.{a.name}" if f"{base}.{a.name}" in sources else base for a in node.names]
            else:
                continue
            for target in candidates:
                while target not in sources and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in sources and target != name and target.startswith("checker"):
                    targets.add(target)
        found[name] = targets
    return found


def upward_imports(sources: dict[str, tuple[str, bool]]) -> list[tuple[str, str]]:
    """(importer, imported) for every import of a later stage than the importer's."""
    return sorted((a, b) for a, targets in imports(sources).items() for b in targets
                  if stage_of(b) > stage_of(a))


def cycles(sources: dict[str, tuple[str, bool]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    graph = imports(sources)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_module_has_a_stage():
    assert [m for m in read_sources() if stage_of(m) is None] == []


def test_no_module_imports_a_later_stage():
    assert upward_imports(read_sources()) == []


def test_no_import_cycles():
    assert cycles(read_sources()) == []


def test_the_rule_catches_an_upward_import_and_a_cycle():
    sources = read_sources()
    f2_text, _ = sources["checker.f2"]
    sources["checker.f2"] = (f2_text + "\n\ndef late():\n    from .cli import main\n", False)
    assert upward_imports(sources) == [("checker.f2", "checker.cli")]
    sources["checker.f2"] = (f2_text, False)
    sources["checker.layout"] = (sources["checker.layout"][0] + "\nfrom . import padded\n", False)
    sources["checker.padded"] = (sources["checker.padded"][0] + "\nfrom .layout import LinearLayout\n", False)
    assert ["checker.layout", "checker.padded"] in cycles(sources)
    assert upward_imports(sources) == [("checker.layout", "checker.padded")]
