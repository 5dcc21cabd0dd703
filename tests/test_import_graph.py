"""No import circle among the toolkit's modules (`tests.import_graph`), and the graph
read as Python runs imports."""

from textwrap import dedent

from tests.import_graph import (
    function_level_imports,
    import_cycles,
    import_graph,
    package_modules,
)


def test_no_import_cycle_among_the_toolkits_modules():
    assert import_cycles(import_graph(package_modules())) == []


def test_no_cycle_hidden_by_an_import_inside_a_function():
    assert import_cycles(import_graph(package_modules(), with_functions=True)) == []


def _package(tmp_path, files):
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text))
    return package_modules({"pkg": root})


def test_the_graph_reads_imports_as_python_runs_them(tmp_path):
    modules = _package(
        tmp_path,
        {
            "__init__.py": "VERSION = 1\n",
            "a.py": """\
                from typing import TYPE_CHECKING
                from pkg import sub, VERSION
                from . import b
                if TYPE_CHECKING:
                    from pkg import c
                else:
                    import pkg.d
                class K:
                    from pkg.sub import leaf
                def f():
                    from pkg import c
                """,
            "b.py": "",
            "c.py": "import pkg.a\n",
            "d.py": "",
            "sub/__init__.py": "",
            "sub/leaf.py": "",
        },
    )
    graph = import_graph(modules)
    # a submodule named by `from x import y` is the edge; a name of the package is x
    assert graph["pkg.a"] == {"pkg.sub", "pkg", "pkg.b", "pkg.d", "pkg.sub.leaf"}
    assert import_cycles(graph) == []
    # the import of c inside f closes a circle that the graph with functions shows
    with_functions = import_graph(modules, with_functions=True)
    assert "pkg.c" in with_functions["pkg.a"]
    assert import_cycles(with_functions) == [["pkg.a", "pkg.c"]]
    assert function_level_imports(modules) == []  # pkg is not one of the toolkit's


def test_a_cycle_through_three_modules_is_one_component(tmp_path):
    modules = _package(
        tmp_path,
        {
            "__init__.py": "",
            "x.py": "from pkg.y import Y\nX = 1\n",
            "y.py": "import pkg.z\nY = 1\n",
            "z.py": "from pkg import x\n",
            "w.py": "import pkg.x\n",
        },
    )
    assert import_cycles(import_graph(modules)) == [["pkg.x", "pkg.y", "pkg.z"]]
