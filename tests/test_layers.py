"""The package's import graph reads top to bottom: no import from a lower layer to a higher one, no cycles.

Every ``import`` and ``from … import`` of the package's modules is read with :mod:`ast` - those inside
functions too (the CLI imports most things lazily, and a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "artemis_routing_cli"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE

# Lowest first; a module may import its own layer and the layers below it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("__init__", "errors", "javastr", "javacollections", "diagnostics", "safeio", "outfile", "records",
              "projectconfig", "jregex")),  # __init__: the version; jregex: java.util.regex
    ("config", ("config",)),
    ("routing", ("routing",)),
    ("messages", ("messages",)),
    ("rules", ("rules",)),
    ("linting", ("linting", "redact", "redact_output")),
    ("verdict", ("verdict",)),  # the broker's deploy verdict, from linting's findings
    ("judge", ("judge",)),  # the user's own broker (--broker-home) in a JVM: its loader and router classes
    ("diffing", ("diffing",)),  # arouter diff's pure core
    ("replay", ("replay",)),  # arouter replay's pure core: broker logs against the engine
    ("fleet", ("fleet",)),  # arouter fleet's pure core
    ("protocols", ("protocols",)),  # sans-IO codecs
    ("report", ("report",)),  # shells from here on
    ("probe", ("probe",)),
    ("serve", ("serve",)),
    ("pipeline", ("pipeline",)),
    ("cli", ("cli",)),
    ("main", ("__main__",)),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules ``name`` imports anywhere in its source (resolved to modules, not names)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[:len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # "from . import x" and "from .pkg import mod" name modules; "from .mod import f" names a module
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # a.b.c -> the longest module prefix we have
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def layer_of(module: str) -> int:
    top = module.split(".")[1] if "." in module else "__init__"
    for rank, (_label, members) in enumerate(LAYERS):
        if top in members or top.removesuffix(".py") in members:
            return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS in {__file__}")


def test_every_module_has_a_layer() -> None:
    for name in modules():
        layer_of(name)


def test_no_import_runs_up_the_layers() -> None:
    upward = sorted(f"{a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})"
                    for a, targets in graph().items() for b in targets if layer_of(b) > layer_of(a))
    assert upward == []


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(g.get(v, ())):
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
                found.append(sorted(component))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    assert cycles(graph()) == []


@pytest.mark.parametrize(("source", "expected"), [
    ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_the_cycle_finder_finds_cycles(source: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(source) == expected


def test_function_level_and_relative_imports_are_read(tmp_path: Path) -> None:
    """The reader sees an import inside a function, relative and absolute forms alike."""
    mods = modules()
    g = graph()
    assert f"{PACKAGE}.cli.app" in g[f"{PACKAGE}.cli.entry"]  # imported inside _dispatch
    assert f"{PACKAGE}.routing.selection" in g[f"{PACKAGE}.cli.analyze"]  # inside analyze_command
    assert f"{PACKAGE}.cli.entry" in g[f"{PACKAGE}.cli.spark_submit"]  # absolute, inside main
    assert set(mods) >= set(g)
