"""``ds-gate demo``'s prompt step: the prompt DeepScientist main builds for a stage turn, with
``install --deepscientist --prompts``.

The stand-in of main's ``PromptBuilder`` (``builder.py``, the one the integration tests install as
``deepscientist.prompts.builder``) is wrapped in process by the integration's own code
(``integration/prompts.py``), which asks ds-gate in process (``call.answer``): the request and answer
that travel over DeepScientist's pipe. Main's skills are a small fixture checkout beside the home.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from ds_gate.demo import builder
from ds_gate.integration import prompts, wrap
from ds_gate.integration.call import answer

SKILLS = (("experiment", "stage"), ("write", "stage"), ("finalize", "stage"), ("review", "companion"))
SECTION = "## Priority Memory For This Turn"


def _repo(base: Path) -> Path:
    """A DeepScientist checkout's ``src/skills`` (main's skills are its own files; these only name roles)."""
    repo = base / "deepscientist-checkout"
    for skill_id, role in SKILLS:
        folder = repo / "src" / "skills" / skill_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(f"---\nname: {skill_id}\nskill_role: {role}\n---\n# {skill_id}\n")
    return repo


def build_prompt(home: Path, base: Path, quest_id: str, skill_id: str = "finalize") -> str:
    """main's prompt for a ``skill_id`` turn of the quest, with ds-gate's prompt rules wrapped in."""
    problems = prompts.wrap_builder_module(builder)
    if problems:
        raise RuntimeError("; ".join(problems))
    wrap.set_judge(answer)
    try:
        return builder.PromptBuilder(_repo(base), home).build(
            quest_id=quest_id, skill_id=skill_id, user_message="continue", model="gpt-5"
        )
    finally:  # the stand-in is left as found: a second build, or a test in the same process, sees main's own
        wrap.set_judge(None)
        prompts.unwrap_prompts()


def ds_gate_lines(prompt: str) -> list[str]:
    """The lines ds-gate added: its rules in the priority-memory section, its skill in the companion paths."""
    return [line for line in prompt.splitlines() if "(ds-gate)" in line or line.startswith(prompts.SKILL_LINE)]


def priority_section(prompt: str) -> str:
    """The priority-memory section, each long line folded for the terminal."""
    section = prompt[prompt.index(SECTION) :].split("\n\n## ", 1)[0].strip()
    return "\n".join(
        textwrap.fill(line, 100, subsequent_indent="    ") if len(line) > 100 else line for line in section.splitlines()
    )
