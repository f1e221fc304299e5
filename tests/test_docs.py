"""The documentation stands alone: every link points at a file of this repository (a user who
clones it has nothing beside it), and the README opens with the two commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", REPO / "tests" / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_link_stays_inside_the_repository(doc: Path) -> None:
    links = LINK.findall(doc.read_text(encoding="utf-8"))
    for link in links:
        assert "://" not in link, f"{doc.name} links outside: {link}"
        target = (doc.parent / link.split("#")[0]).resolve()
        assert target.is_relative_to(REPO), f"{doc.name} links outside: {link}"
        assert target.exists(), f"{doc.name} links to a missing file: {link}"


def test_the_readme_opens_with_the_two_commands() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    first_block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in first_block.splitlines() if line and not line.startswith("#")]
    assert commands == [
        'python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/poker-bot',
        'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/python -m tests',
    ]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install -q -e ".[test]" && .venv/bin/python -m tests' in ci
