"""Sphinx configuration of the documentation: its home page, the guide, the rules and the
API reference.

Build it with ``sphinx-build -W --keep-going -b html docs build/docs`` (warnings are
errors, as in CI) after ``pip install -e '.[docs]'``; open build/docs/index.html.

The home page (index.md) is a page of its own; the guide (docs/guide/, a page per part of
the toolkit) holds what the README leaves out, and the README keeps the study's answer,
which the guide's experiments page includes from it (written by ``eleusis-lab report
--markdown README.md``, so both show the same answer). The pages' ``>>>`` examples are
doctests of the suite (pyproject.toml, ``[tool.pytest.ini_options]``).

The reference pages (docs/reference/, not kept in git) are written here, at every build,
from the list of modules in docs/reference.toml. The docstrings are numpy-style
reStructuredText: napoleon reads their sections, and a name in single backticks is a
cross reference (``default_role``), a link where Sphinx knows the object and code where
it does not (a name outside the package, a parameter, an expression).
"""

from __future__ import annotations

import ast
import importlib.util
import runpy
import tomllib
from pathlib import Path

import eleusis_lab

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

project = "eleusis-lab"
author = "eleusis-lab developers"
copyright = "eleusis-lab developers"
release = version = eleusis_lab.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["seeds"]
default_role = "py:obj"

napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}

myst_heading_anchors = 3  # the pages' links to their sections and to each other's

html_theme = "furo"
html_title = f"eleusis-lab {release}"
html_static_path = ["_static"]
html_css_files = ["code-wrap.css"]  # shell commands wrap in their code boxes


def reexports(module: str) -> dict[str, str]:
    """The names of a module's ``__all__`` that it imports from elsewhere, each with its
    origin: they are documented where they are defined, so a name has one entry."""
    path = Path(importlib.util.find_spec(module).origin)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    imported: dict[str, str] = {}
    exported: list[str] = []
    statements = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while statements:  # the module's own statements, those under if and try included
        node = statements.pop(0)
        if isinstance(node, ast.If | ast.Try):
            statements += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
            statements += [
                line for handler in getattr(node, "handlers", []) for line in handler.body
            ]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            origin = ".".join(part for part in (base, node.module) if part)
            for alias in node.names:
                imported[alias.asname or alias.name] = f"{origin}.{alias.name}"
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            exported = list(ast.literal_eval(node.value))
    return {name: imported[name] for name in exported if name in imported}


def module_section(module: str) -> str:
    lines = [module, "-" * len(module), "", f".. automodule:: {module}"]
    moved = reexports(module)
    if moved:
        lines.append(f"   :exclude-members: {', '.join(moved)}")
        origins = ", ".join(f"`{name} <{origin}>`" for name, origin in moved.items())
        lines += ["", f"   Also exported here, each documented where it is defined: {origins}."]
    return "\n".join(lines) + "\n"


def write_reference() -> None:
    """Write docs/reference/ from docs/reference.toml: an index and a page per group."""
    groups = tomllib.loads((HERE / "reference.toml").read_text(encoding="utf-8"))["group"]
    pages = {"index": "API reference\n=============\n\n.. toctree::\n\n"}
    for group in groups:
        pages["index"] += f"   {group['page']}\n"
        title = group["title"]
        body = "\n".join(module_section(module) for module in group["modules"])
        pages[group["page"]] = f"{title}\n{'=' * len(title)}\n\n{body}"
    folder = HERE / "reference"
    folder.mkdir(exist_ok=True)
    for stale in set(folder.glob("*.rst")) - {folder / f"{name}.rst" for name in pages}:
        stale.unlink()
    for name, text in pages.items():
        path = folder / f"{name}.rst"
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")  # unchanged pages are not rebuilt


def readme_links(app, relative_path, parent_docname, content) -> None:
    """The README as a page includes a part of it (the study's answer, in the guide's
    experiments page): its links to pages and figures of this site stay links, and those
    to other files of the repository (the seeds' folder, the licence) become plain paths,
    as in the package description (setup.py)."""
    if Path(relative_path).name == "README.md":
        plain_paths = runpy.run_path(str(ROOT / "setup.py"))["plain_paths"]
        content[0] = plain_paths(content[0], keep=on_this_site)


def on_this_site(path: str) -> bool:
    return path.startswith("docs/") and (ROOT / path).is_file()


def skip_aliases(app, what, name, obj, skip, options) -> bool | None:
    """Skip a class attribute whose value is another class (a dataclass field's default,
    a match's ``record_type``): autodoc takes that class's docstring for the attribute's,
    and lists the attribute as documented, twice where the docstring's Attributes section
    has it too (``GameType.seat_view``)."""
    if what == "class" and isinstance(obj, type) and obj.__name__ != name:
        return True
    return None


def python_name(target: str, module: str | None) -> str | None:
    """Where Python finds ``target`` from ``module`` (a name the module imports, a re-export
    of a package): the object's name in the module that defines it, or None. Only the
    project's own modules are imported."""
    parts = target.split(".")
    starts = [(module, parts)] if module else []
    starts += [(".".join(parts[:i]), parts[i:]) for i in range(len(parts) - 1, 0, -1)]
    for start, rest in starts:
        if start.split(".")[0] not in ("eleusis_lab", "eleusis_agents") or "__main__" in start:
            continue
        try:
            obj = importlib.import_module(start)
        except ImportError:
            continue
        found = None
        for depth, part in enumerate(rest):
            obj = getattr(obj, part, None)
            if obj is None:
                found = None
                break
            if isinstance(getattr(obj, "__qualname__", None), str) and getattr(
                obj, "__module__", None
            ):
                found = ".".join([obj.__module__, obj.__qualname__, *rest[depth + 1 :]])
        if found:
            return found
    return None


def resolve_by_python(app, env, node, contnode):
    """Resolve a reference that Sphinx does not find under the name it is written with,
    by the name Python gives its object; one that neither finds stays code."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    found = python_name(target, node.get("py:module"))
    if not found or found == target:
        return None
    domain = env.get_domain("py")
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], found, node, contnode
    )


def setup(app) -> None:
    app.connect("include-read", readme_links)
    app.connect("autodoc-skip-member", skip_aliases)
    app.connect("missing-reference", resolve_by_python)


write_reference()
