"""What the distribution carries: typing marker, licence, citation, docs, specs, notebooks."""

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
def sdist(tmp_path_factory) -> list[str]:
    """The names in a source distribution built from a copy of the working tree."""
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
    with tarfile.open(out / result.stdout.split()[-1]) as archive:
        return [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]


def test_the_sdist_carries_docs_specs_notebooks_licence_and_markers(sdist):
    expected = [
        "LICENSE",
        "CITATION.cff",
        "docs/RULES.md",
        "experiments/rule_complexity.toml",
        "experiments/run_study.py",
        "notebooks/01_quickstart.ipynb",
        "eleusis_lab/py.typed",
        "agents/py.typed",
    ]
    assert [name for name in expected if name not in sdist] == []
    assert not [name for name in sdist if "__pycache__" in name]


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
