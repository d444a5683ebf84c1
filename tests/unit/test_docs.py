"""Issue 27: a newcomer's README is short and leads to the decision at once; the rest lives on a
MkDocs site whose every page is in the nav. ``mkdocs build --strict`` (CI) checks the site's
own links and anchors; these tests check what it does not see: the README's size, the place
of its setup table, its links into docs/, and the quick start CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"
SCREENFUL = 40  # lines: the setup decision must be read before any scrolling


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [page for item in node for page in _nav_pages(item)]
    if isinstance(node, dict):
        return [page for value in node.values() for page in _nav_pages(value)]
    return []


def _anchors(markdown: str) -> set[str]:
    """The ids MkDocs' toc extension gives a page's headings (its default slugify)."""
    found, fence = set(), False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and (m := re.match(r"#{1,6} (.+)", line)):
            text = re.sub(r"[^\w\s-]", "", m.group(1)).strip().lower()
            found.add(re.sub(r"[-\s]+", "-", text))
    return found


def test_the_readme_is_at_most_10_kb() -> None:
    assert len(README.read_text(encoding="utf-8").encode()) <= 10_240


def test_the_setup_decision_table_is_within_the_first_screenful() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()[:SCREENFUL]
    rows = [line for line in lines if line.startswith("| ")]
    agent = [row for row in rows if row.startswith("| agent-driven") and "`ds-gate install" in row]
    human = [row for row in rows if row.startswith("| human-driven") and "pre-commit" in row]
    ci = [row for row in rows if row.startswith("| CI") and "ds-gate closure" in row]
    assert agent and human and ci, "the table (agent-driven / human-driven / CI) must be in the first 40 lines"
    assert any("ds-gate doctor" in line for line in lines)


def test_the_quick_start_is_the_two_commands_ci_runs() -> None:
    readme = README.read_text(encoding="utf-8")
    block = readme.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    assert commands == ["pip install . && ds-gate demo", "pip install '.[test]' && pytest"]
    ci = (REPO / ".ci" / "run").read_text()
    assert all(f"\n{command}\n" in ci for command in commands)


def test_no_placeholder_address_is_left() -> None:
    for path in [README, REPO / "CONTRIBUTING.md", *DOCS.glob("*.md")]:
        assert "YOUR-ORG" not in path.read_text(encoding="utf-8"), path


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    nav = _nav_pages(config["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(nav) == pages and len(set(nav)) == len(nav)
    validation = config["validation"]
    assert validation["nav"]["omitted_files"] == "warn" and config["strict"] is True
    assert validation["links"]["not_found"] == "warn" and validation["links"]["anchors"] == "warn"


def test_the_docs_index_lists_every_page_of_the_nav() -> None:
    """Issue 39: the index's table of pages left out two pages of the site."""
    nav = _nav_pages(yaml.safe_load((REPO / "mkdocs.yml").read_text())["nav"])
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    assert [page for page in nav if page != "index.md" and f"]({page})" not in index] == []


def test_configuration_says_pyproject_is_read_on_every_supported_python() -> None:
    """Issue 39: the page said ``[tool.ds-gate]`` was unreadable on Python 3.10, where the
    dependency ``tomli`` (pyproject.toml) reads it."""
    assert "tomli>=" in (REPO / "pyproject.toml").read_text() and "Python ≥ 3.10" in (DOCS / "index.md").read_text()
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert "needs Python 3.11" not in page and "on 3.10, with `tomli`" in page


def test_the_contributing_test_count_is_the_fast_subsets() -> None:
    """Issue 39: CONTRIBUTING named a count of fast tests long stale; it now names none to go stale."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert not re.search(r"runs \d[\d,]* tests", text)


def test_the_readmes_links_reach_files_and_headings() -> None:
    """GitHub renders the README, MkDocs never sees it: its links are checked here."""
    readme = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", readme)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert len(local) > 10
    for link in local:
        target, _, anchor = link.partition("#")
        path = REPO / target if target else README
        assert path.is_file(), link
        if anchor:
            assert anchor in _anchors(path.read_text(encoding="utf-8")), link


def test_the_pages_link_outside_docs_only_by_address() -> None:
    """A relative link out of docs/ works on GitHub but not on the site (strict fails on it);
    the pages name ARCHITECTURE.md, CONTRIBUTING.md and the like by their GitHub address."""
    for path in DOCS.glob("*.md"):
        for link in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
            assert not link.startswith("../"), (path.name, link)
