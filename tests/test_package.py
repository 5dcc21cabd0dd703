"""What the distribution carries: typing marker, licence, citation, docs, specs, notebooks."""

import email
import json
import re
import runpy
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_packages_are_typed_and_ship_the_marker():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for package, folder in (("eleusis_lab", "eleusis_lab"), ("eleusis_agents", "agents")):
        assert (ROOT / folder / "py.typed").is_file() and "py.typed" in data[package]


def test_licence_citation_and_classifiers_agree_with_pyproject():
    project = PYPROJECT["project"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert "eleusis-lab developers" in (ROOT / "LICENSE").read_text()
    citation = (ROOT / "CITATION.cff").read_text()
    assert f'version: "{project["version"]}"' in citation  # one version, pyproject's
    assert "License :: OSI Approved :: MIT License" in project["classifiers"]
    assert "Typing :: Typed" in project["classifiers"]


@pytest.fixture(scope="module")
def sdist_archive(tmp_path_factory) -> Path:
    """A source distribution built from a copy of the working tree."""
    tree = tmp_path_factory.mktemp("tree") / "eleusis-lab"
    ignore = shutil.ignore_patterns(
        ".git", ".venv", ".*_cache", ".hypothesis", "results", "*.egg-info", "__pycache__"
    )
    shutil.copytree(ROOT, tree, ignore=ignore)
    out = tree / "dist"
    build = "from setuptools import build_meta; print(build_meta.build_sdist('dist'))"
    result = subprocess.run(
        [sys.executable, "-c", build], cwd=tree, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return out / result.stdout.split()[-1]


@pytest.fixture(scope="module")
def sdist(sdist_archive) -> list[str]:
    """The names in the source distribution, without its top folder."""
    with tarfile.open(sdist_archive) as archive:
        return [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]


def test_the_sdist_carries_docs_specs_notebooks_licence_and_markers(sdist):
    expected = [
        "LICENSE",
        "CITATION.cff",
        "docs/RULES.md",
        "docs/conf.py",
        "docs/index.md",
        "docs/guide/tutorial.md",
        "docs/_static/code-wrap.css",
        "docs/reference.toml",
        "experiments/rule_complexity.toml",
        "experiments/run_study.py",
        "notebooks/01_quickstart.ipynb",
        "eleusis_lab/py.typed",
        "agents/py.typed",
    ]
    assert [name for name in expected if name not in sdist] == []
    assert not [name for name in sdist if "__pycache__" in name]
    assert not [name for name in sdist if name.startswith("docs/reference/")]  # built pages


def test_a_folder_named_agents_where_it_runs_does_not_shadow_the_agents(tmp_path):
    """The agents install as eleusis_agents: a user's own agents/ folder is theirs."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("raise ImportError('my own agents')\n")
    command = [sys.executable, "-m", "eleusis_lab", "play", "--agents", "random,oracle"]
    played = subprocess.run(
        [*command, "--rule", "red_only", "--seed", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert played.returncode == 0, played.stderr
    assert "OracleAgent" in played.stdout


def test_every_package_of_the_tree_is_declared_so_the_wheel_ships_it():
    declared = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "eleusis_lab").rglob("__init__.py")
    }
    assert found - declared == set()
    assert "eleusis_agents" in declared


def relative_links(markdown: str) -> list[str]:
    """The targets of the Markdown links and images that are neither anchors nor URLs."""
    targets = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)", markdown)
    return [t for t in targets if not t.startswith("#") and not re.match(r"[a-z]+:", t)]


def test_the_package_description_has_no_relative_link_and_names_files_it_carries(
    sdist_archive, sdist
):
    """An index page has no repository beside it: the README's links into it (the rules,
    the guide's pages, the figures, the licence) are written as plain paths, of files the
    sdist carries."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    with tarfile.open(sdist_archive) as archive:
        member = next(name for name in archive.getnames() if name.endswith("/PKG-INFO"))
        metadata = email.message_from_bytes(archive.extractfile(member).read())
    description = metadata.get_payload()
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert relative_links(description) == []
    paths = relative_links(readme)
    assert "docs/RULES.md" in paths and "LICENSE" in paths  # what this test is about
    assert "docs/guide/tutorial.md" in [path.partition("#")[0] for path in paths]
    for path in paths:
        assert f"`{path}`" in description
        file = path.partition("#")[0]  # a section of a guide's page: the page
        assert any(name == file or name.startswith(f"{file}/") for name in sdist), path
    assert description.count("\n## ") == readme.count("\n## ")  # the rest is the README


def test_plain_paths_keeps_anchors_urls_code_and_what_it_is_told_to_keep():
    plain_paths = runpy.run_path(str(ROOT / "setup.py"))["plain_paths"]
    text = (
        'See [docs/RULES.md](docs/RULES.md), [the rules](docs/RULES.md "title"), '
        "[below](#layout), [a site](https://example.org/x) and `[code](kept.md)`.\n"
        "![a figure](docs/figures/a.png)\n"
        "```python\n[1](2)\n```\n"
    )
    assert plain_paths(text) == (
        "See `docs/RULES.md`, the rules (`docs/RULES.md`), "
        "[below](#layout), [a site](https://example.org/x) and `[code](kept.md)`.\n"
        "*Figure: a figure* (`docs/figures/a.png`)\n"
        "```python\n[1](2)\n```\n"
    )
    kept = plain_paths(text, keep=lambda path: path.startswith("docs/figures/"))
    assert "![a figure](docs/figures/a.png)" in kept and "[docs/RULES.md](" not in kept


def test_the_notebooks_are_committed_without_outputs():
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        run = [
            c for c in cells if c["cell_type"] == "code" and (c["outputs"] or c["execution_count"])
        ]
        assert not run, f"{path.name}: clear its outputs before committing"
