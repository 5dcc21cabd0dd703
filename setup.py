"""The package description: the README, with its links into the repository made plain paths.

Everything else is in pyproject.toml, whose ``dynamic = ["readme"]`` leaves the long
description to this file. The README's relative links (docs/RULES.md, the figures, the
licence) work in a clone but break on an index page, which has no repository beside it.
An absolute link needs the project's public address, and none is recorded yet (see
pyproject.toml, ``[project.urls]``): until one is, each such link becomes the path it
names, in code, a file that the source distribution carries. Anchors (``#section``) and
absolute URLs stay links. Once an address is recorded, this is where the paths become
links under it. The documentation site reads the README the same way (docs/conf.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

# [text](target) or ![text](target): no nested brackets, no spaces in the target (the
# README has neither); the target may carry a quoted title, dropped with the link.
LINK = re.compile(r"(?P<image>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # a scheme: http:, https:, mailto:, ...


def plain_paths(markdown: str, keep: Callable[[str], bool] = lambda path: False) -> str:
    """The Markdown text with its relative links and images written as the paths they name.

    ``[docs/RULES.md](docs/RULES.md)`` becomes the path in a code span,
    ``[the rules](docs/RULES.md)`` becomes ``the rules (`docs/RULES.md`)``, and an image
    ``![alt](docs/a.png)`` becomes ``*Figure: alt* (`docs/a.png`)``. Anchors, URLs, code
    spans, fenced code blocks and the paths for which ``keep(path)`` is true are left as
    they are.
    """

    def plain(match: re.Match[str]) -> str:
        image, text, target = match["image"], match["text"], match["target"]
        if target.startswith("#") or URL.match(target) or keep(target):
            return match[0]
        if image:
            return f"*Figure: {text}* (`{target}`)"
        if text.strip("`") == target:
            return f"`{target}`"
        return f"{text} (`{target}`)"

    out = []
    fence = None
    for line in markdown.splitlines(keepends=True):
        marker = re.match(r"\s*(```|~~~)", line)
        if fence is None and marker:
            fence = marker[1]
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
        else:
            # outside code spans only: the odd pieces of a split on backticks are code
            pieces = re.split(r"(`+[^`]*`+)", line)
            line = "".join(
                piece if index % 2 else LINK.sub(plain, piece) for index, piece in enumerate(pieces)
            )
        out.append(line)
    return "".join(out)


if __name__ == "__main__":
    from setuptools import setup

    readme = Path(__file__).resolve().parent / "README.md"
    setup(
        long_description=plain_paths(readme.read_text(encoding="utf-8")),
        long_description_content_type="text/markdown",
    )
