"""The import graph of the toolkit's own modules, read from their source.

An edge ``a -> b`` means that importing ``a`` runs an import of ``b`` at module level
(class bodies and ``try`` blocks included; function bodies and ``if TYPE_CHECKING:``
blocks excluded, since neither runs when ``a`` is imported). ``from x import y`` is an
edge to ``x.y`` when ``x.y`` is a module, else to ``x``; relative imports are resolved.
A cycle in this graph is an import circle: which module of it fails depends on which one
a program happens to import first. An import moved into a function hides a circle
without breaking it, so the circles are also sought counting those imports
(``with_functions=True``).

Run it to print the circles and count the imports made inside functions::

    python tests/import_graph.py

>>> graph = import_graph(package_modules())
>>> "eleusis_lab.cards" in graph["eleusis_lab.rules.context"]
True
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Each top-level package and the folder it is installed from (pyproject's package-dir).
PACKAGES = {"eleusis_lab": ROOT / "eleusis_lab", "eleusis_agents": ROOT / "agents"}


@dataclass(frozen=True)
class ModuleSource:
    """One module of the toolkit: its dotted name, its file and whether it is a package."""

    name: str
    path: Path
    is_package: bool


def package_modules(packages: Mapping[str, Path] = PACKAGES) -> dict[str, ModuleSource]:
    """Every module of ``packages`` by dotted name (``__main__`` modules excluded).

    >>> modules = package_modules()
    >>> modules["eleusis_lab.rules"].is_package, modules["eleusis_lab.cards"].is_package
    (True, False)
    >>> "eleusis_agents.simple" in modules
    True
    """
    modules = {}
    for top, folder in packages.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__main__":
                continue
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            name = ".".join([top, *parts])
            modules[name] = ModuleSource(name, path, is_package)
    return modules


@dataclass(frozen=True)
class ImportSite:
    """One import statement's target module (as written) and where it stands."""

    target: str
    names: tuple[str, ...]
    in_function: bool
    line: int


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _absolute(module: ModuleSource, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.name.split(".")
    if not module.is_package:
        package.pop()
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_sites(module: ModuleSource) -> Iterator[ImportSite]:
    """Every import statement of ``module`` that runs, at import or in a function.

    Imports under ``if TYPE_CHECKING:`` never run and are left out.

    >>> sites = list(import_sites(package_modules()["eleusis_lab.rules"]))
    >>> ("eleusis_lab.rules.context", ("Context",), False) in [
    ...     (s.target, s.names, s.in_function) for s in sites]
    True
    """
    tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))

    def visit(node: ast.AST, in_function: bool) -> Iterator[ImportSite]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield ImportSite(alias.name, (), in_function, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names)
            yield ImportSite(_absolute(module, node), names, in_function, node.lineno)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from visit(child, in_function)
        else:
            inner = in_function or isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            for child in ast.iter_child_nodes(node):
                yield from visit(child, inner)

    yield from visit(tree, False)


def _targets(site: ImportSite, modules: Mapping[str, ModuleSource]) -> Iterator[str]:
    if not site.names:
        yield site.target
        return
    for name in site.names:
        submodule = f"{site.target}.{name}"
        yield submodule if submodule in modules else site.target


def import_graph(
    modules: Mapping[str, ModuleSource], *, with_functions: bool = False
) -> dict[str, set[str]]:
    """Each module's imports of other modules of ``modules``.

    Module-level imports; ``with_functions=True`` adds those made inside functions.
    """
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, module in modules.items():
        for site in import_sites(module):
            if site.in_function and not with_functions:
                continue
            graph[name].update(
                target for target in _targets(site, modules) if target in modules and target != name
            )
    return graph


def import_cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` that hold a cycle, largest first.

    Each component is sorted by name; a module importing itself is not counted.

    >>> import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    [['a', 'b', 'c']]
    >>> import_cycles({"a": {"b"}, "b": set()})
    []
    """
    # Tarjan's algorithm, iterative so that a deep graph cannot hit the recursion limit.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components, key=lambda c: (-len(c), c))


def function_level_imports(modules: Mapping[str, ModuleSource]) -> list[tuple[str, int, str]]:
    """Imports of the toolkit's own modules made inside functions: (module, line, target)."""
    found = []
    for name, module in modules.items():
        for site in import_sites(module):
            if site.in_function and site.target.split(".")[0] in PACKAGES:
                found.append((name, site.line, site.target))
    return found


def _print_cycles(title: str, cycles: list[list[str]]) -> None:
    print(f"{title}: {len(cycles)}")
    for cycle in cycles:
        print(f"  {len(cycle)} modules: {' '.join(cycle)}")


def main() -> None:
    modules = package_modules()
    print(f"{len(modules)} modules")
    _print_cycles("import cycles", import_cycles(import_graph(modules)))
    hidden = import_cycles(import_graph(modules, with_functions=True))
    _print_cycles("import cycles counting the imports inside functions", hidden)
    inner = function_level_imports(modules)
    every = sum(site.in_function for m in modules.values() for site in import_sites(m))
    print(f"{every} imports inside functions, {len(inner)} of them of the toolkit's own modules")


if __name__ == "__main__":
    main()
