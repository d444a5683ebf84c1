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


# issue 39: words a newcomer does not know, and a test command that fits a first hour
TERMS = {"the RFC": "glossary.md#the-rfc", "PR #60": "glossary.md#pr-60"}


def _prose(markdown: str) -> list[str]:
    """The page's lines outside fenced code and headings, inline code blanked out."""
    lines, fence = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and not line.startswith("#"):
            lines.append(re.sub(r"`[^`]*`", lambda m: " " * len(m.group()), line))
    return lines


def test_the_glossary_is_in_the_nav_linked_from_the_readme_and_links_the_rfc() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    assert "glossary.md" in _nav_pages(config["nav"])
    assert "](docs/glossary.md)" in README.read_text(encoding="utf-8")
    glossary = (DOCS / "glossary.md").read_text(encoding="utf-8")
    assert "https://github.com/ResearAI/DeepScientist/issues/64" in glossary
    assert "https://github.com/ResearAI/DeepScientist/pull/60" in glossary
    anchors = _anchors(glossary)
    for heading in ("the-rfc", "pr-60", "contract-and-discipline", "the-two-review-encodings", "covered-and-pending"):
        assert heading in anchors
    assert {"quest-home-and-worktree", "card-scopes"} <= anchors


def test_each_pages_first_mention_of_the_rfc_and_pr_60_links_to_the_glossary() -> None:
    for path in sorted(DOCS.glob("*.md")):
        if path.name == "glossary.md":
            continue
        text = "\n".join(_prose(path.read_text(encoding="utf-8")))
        for term, target in TERMS.items():
            at = text.lower().find(term.lower())
            if at >= 0:
                assert text[at - 1] == "[" and text[at + len(term) :].startswith(f"]({target})"), (path.name, term)


def test_the_readme_gives_the_fast_subset_with_its_time_beside_the_whole_suite() -> None:
    readme = README.read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert re.search(r'`pytest -m "not slow" -n 2` \(about \d+ s\)', quick)
    assert re.search(r"`pytest -n 2` \(about \d+ minutes\)", quick)
