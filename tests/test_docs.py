"""The API reference lists every public module once (docs/reference.toml), so none is left out."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GROUPS = tomllib.loads((ROOT / "docs" / "reference.toml").read_text(encoding="utf-8"))["group"]


def public_modules() -> set[str]:
    """Every module of eleusis_lab and eleusis_agents but ``__main__`` and private ones."""
    found = set()
    for package, folder in (("eleusis_lab", "eleusis_lab"), ("eleusis_agents", "agents")):
        for path in (ROOT / folder).rglob("*.py"):
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            if not any(part.startswith("_") for part in parts):
                found.add(".".join(parts))
    return found


def test_every_public_module_is_in_the_reference_once():
    listed = [module for group in GROUPS for module in group["modules"]]
    assert sorted({m for m in listed if listed.count(m) > 1}) == []
    assert sorted(public_modules() - set(listed)) == []  # a new module: add it to a group
    assert sorted(set(listed) - public_modules()) == []  # a module removed or renamed


def test_the_reference_pages_have_distinct_names_and_titles():
    for key in ("page", "title"):
        values = [group[key] for group in GROUPS]
        assert len(values) == len(set(values)), key
    assert "index" not in [group["page"] for group in GROUPS]  # the reference's own index
