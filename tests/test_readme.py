"""The README and the documentation's guide: the README's first screen holds the study's
answer, its links and the guide's lead to files and sections that exist, every guide page
is in the site's table of contents and in the suite's doctests, and the agents page's
example is the real module, so the doctested class cannot drift."""

import inspect
import re
import shlex
import tomllib
from pathlib import Path

import pytest
from _pytest.pathlib import fnmatch_ex

from eleusis_agents.examples import ColourPairs
from eleusis_lab.report import MARKDOWN_BEGIN, MARKDOWN_END

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
GUIDE = sorted((DOCS / "guide").glob("*.md"))
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def prose(markdown: str) -> str:
    """The Markdown text without its fenced blocks (code, and directives such as include)."""
    return FENCE.sub("", markdown)


def links(markdown: str) -> list[str]:
    """The targets of the text's Markdown links and images that are neither URLs nor code."""
    text = re.sub(r"`[^`\n]*`", "", prose(markdown))
    targets = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)", text)
    return [target for target in targets if not re.match(r"[a-z]+:", target)]


def anchors(markdown: str) -> set[str]:
    """The anchors of the text's headings, as GitHub and MyST (``myst_heading_anchors``)
    both write them: lower case, punctuation dropped, spaces made hyphens."""
    headings = re.findall(r"^#{1,6} (.+)$", prose(markdown), re.MULTILINE)
    slugs = (re.sub(r"[^\w\- ]", "", heading.strip().lower()) for heading in headings)
    return {slug.replace(" ", "-") for slug in slugs}


def test_the_guide_shows_the_example_agent_verbatim():
    assert inspect.getsource(ColourPairs).rstrip() in read(DOCS / "guide" / "agents.md")


def test_example_agent_fits_in_twenty_lines():
    assert len(inspect.getsource(ColourPairs).rstrip().splitlines()) <= 20


def test_the_readmes_first_screen_holds_the_answer():
    lines = read(README).splitlines()
    assert MARKDOWN_BEGIN in lines[:60], "the study's answer must start in the first 60 lines"
    assert lines.index(MARKDOWN_BEGIN) < lines.index(MARKDOWN_END)
    assert lines.index("## Quick start") < lines.index(MARKDOWN_BEGIN)
    assert any(line.startswith("![") and "docs/figures/" in line for line in lines[:60])
    assert 100 <= len(lines) <= 250  # short: the rest is in the guide


def test_every_guide_page_is_in_the_sites_table_of_contents():
    index = read(DOCS / "index.md")
    assert "{include}" not in index  # a home page of its own, not the README
    blocks = re.findall(r"^```\{toctree\}\n(.*?)^```", index, re.MULTILINE | re.DOTALL)
    entries = [
        line.strip()
        for block in blocks
        for line in block.splitlines()
        if line.strip() and not line.startswith(":")
    ]
    pages = [f"guide/{page.stem}" for page in GUIDE]
    assert pages and [page for page in pages if page not in entries] == []
    assert "RULES" in entries and "reference/index" in entries  # written by conf.py
    for entry in entries:
        assert entry == "reference/index" or (DOCS / f"{entry}.md").is_file(), entry


@pytest.mark.parametrize("path", [README, DOCS / "index.md", *GUIDE], ids=lambda p: p.name)
def test_relative_links_lead_to_files_and_sections_that_exist(path):
    """On GitHub and in the site alike: a moved section's old anchor fails here."""
    for target in links(read(path)):
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), f"{path.name}: {target}"
        if anchor:
            assert anchor in anchors(read(linked)), f"{path.name}: {target}"


def test_the_readme_links_every_guide_page():
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in links(read(README))}
    assert [page.name for page in GUIDE if page.resolve() not in linked] == []
    assert (DOCS / "RULES.md").resolve() in linked


def test_the_guide_pages_doctests_are_collected_by_the_suite():
    """The `>>>` examples moved from the README run under ``pytest``: their folder is a
    test path and a doctest glob matches them (a glob with a folder in it is matched
    against the whole path)."""
    options = tomllib.loads(read(ROOT / "pyproject.toml"))["tool"]["pytest"]["ini_options"]
    addopts = options["addopts"]
    args = addopts if isinstance(addopts, list) else shlex.split(addopts)
    globs = [arg.split("=", 1)[1] for arg in args if arg.startswith("--doctest-glob=")]
    assert "README.md" in options["testpaths"] and "docs/guide" in options["testpaths"]
    assert any(fnmatch_ex(glob, README) for glob in globs)
    with_examples = [page for page in GUIDE if ">>> " in read(page)]
    assert {page.stem for page in with_examples} >= {"tutorial", "agents", "games"}
    for page in with_examples:
        assert any(fnmatch_ex(glob, page) for glob in globs), page.name
    assert not any(fnmatch_ex(glob, DOCS / "RULES.md") for glob in globs)


def test_the_experiments_page_includes_the_readmes_study_and_answer():
    """The site shows the README's own study section (``--markdown README.md`` updates
    both): every text the page's includes cut at is in the README, in order."""
    page = read(DOCS / "guide" / "experiments.md")
    cuts = re.findall(r'^:(?:start-after|end-before): "(.*)"$', page, re.MULTILINE)
    readme = read(README)
    assert len(cuts) == 4 and cuts[-1] == MARKDOWN_END
    positions = [readme.find(cut) for cut in cuts]
    assert -1 not in positions and positions == sorted(positions)
    assert readme.index(MARKDOWN_BEGIN) > positions[2]  # the answer is within the include


def test_the_readmes_published_comparison_is_the_benchmark_pages():
    readme = read(README)
    section = readme[readme.index("## Beside the published language models") :]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    benchmarks = read(DOCS / "guide" / "benchmarks.md")
    assert len(rows) >= 7 and [row for row in rows if row not in benchmarks] == []
