"""The RFC's prompt rules and the ``distill`` skill in the prompts DeepScientist ``main`` builds.

Copied beside ``wrap.py`` as ``_ds_gate_ds_prompts.py``; standard library only; active only when the
integration was installed with ``--prompts``. Every runner's turn prompt comes from one
``PromptBuilder.build`` (main's ``prompts/builder.py``); two of its methods are wrapped, in
DeepScientist's process, nothing on disk of DeepScientist's is written:

- ``_priority_memory_block``: on a stage turn, ds-gate's lines (``distill_required_rule``,
  ``recall_priors_rule``, ``global_scope_rule``, from ``ds_gate.agent.prompt_rules`` through
  ``wrap.judge``) go before ``- selected_memory:``, where PR #60 put its two rules. When ds-gate
  cannot answer, the prompt is still built, with one line saying so (the closure tools still refuse).
- ``_companion_skill_paths_block``: a line ``- distill: primary=<this folder>/_ds_gate_ds_distill.md``.
  main's skill registry is not wrapped: its skill sync would then copy the skill into every quest's
  runner folders, a write into quests ds-gate would have caused (docs/deepscientist-integration.md).

The checks are the tool wraps' (a known version, each method with exactly main's parameters), with
their own state and originals: a prompt shape ds-gate does not know adds nothing and says so, and
leaves the tool wraps as they are (and the reverse).
"""

import functools
from pathlib import Path
from typing import Any

if __name__.startswith("ds_gate."):  # its sibling under the name it has here and in DeepScientist's runtime
    from ds_gate.integration import wrap
else:
    import _ds_gate_ds_wrap as wrap  # type: ignore[import-not-found, no-redef]

BUILDER = "deepscientist.prompts.builder"
SKILL_FILE = "_ds_gate_ds_distill.md"  # beside this module in DeepScientist's site-packages
SKILL_LINE = "- distill: primary="
MEMORY_ANCHOR = "\n- selected_memory:"  # main's last fixed line of the block; cards come after it
TIMEOUT = 20.0  # seconds: one turn's rules, never a hung prompt
MAX_LINES, MAX_CHARS = 8, 4000
METHOD_SHAPES = {
    "build": "self, *, quest_id, skill_id, user_message, model, turn_reason, turn_intent, turn_mode, "
    "retry_context, runner_name",
    "_priority_memory_block": "self, quest_root, *, skill_id, active_anchor, user_message",
    "_companion_skill_paths_block": "self",
}
MODULE_SHAPES = {"current_standard_skills": "repo_root_path"}
_PROMPT_ORIGINALS: list[tuple[Any, str, Any]] = []


def state() -> dict[str, Any]:
    """What the prompts integration did in this process (``wrap.status()['prompts']``)."""
    found: dict[str, Any] = wrap.PROMPTS
    return found


def skill_path() -> Path:
    """The skill file beside this module: as the installer names it in DeepScientist's site-packages, as
    the package holds it inside ds-gate (the demo)."""
    return Path(__file__).with_name("distill.md" if __name__.startswith("ds_gate.") else SKILL_FILE)


def unwrap_prompts() -> None:
    """Put back what this module wrapped (only its own): a process that wrapped for one build (the
    demo) leaves main's ``PromptBuilder`` as it found it."""
    for owner, name, original in reversed(_PROMPT_ORIGINALS):
        setattr(owner, name, original)
    _PROMPT_ORIGINALS.clear()
    state()["wrapped"] = []


def refuse_prompts(reason: str) -> None:
    """Put back what this module wrapped, remember why, say it once."""
    unwrap_prompts()
    state().update(state="refused", reason=reason)
    wrap.say(f"prompts add nothing: {reason}; run ds-gate doctor")


def clean(lines: Any) -> list[str]:
    """ds-gate's answer as prompt lines: at most ``MAX_LINES`` strings starting ``- ``, one line
    each (control characters dropped), ``MAX_CHARS`` in all; anything else raises."""
    if not isinstance(lines, list) or len(lines) > MAX_LINES:
        raise ValueError("ds-gate answered no list of prompt lines")
    out: list[str] = []
    for line in lines:
        if not isinstance(line, str) or not line.startswith("- "):
            raise ValueError("ds-gate answered a prompt line that is not '- ...'")
        out.append("".join(ch if ch.isprintable() else " " for ch in line))
    if sum(len(line) for line in out) > MAX_CHARS:
        raise ValueError(f"ds-gate's prompt lines are over {MAX_CHARS} characters")
    return out


def failsafe(exc: BaseException) -> str:
    why = "".join(ch if ch.isprintable() else " " for ch in f"{type(exc).__name__}: {exc}")[:300]
    return (
        f"- ds_gate_note: ds-gate could not add its experience-distill rules this turn ({why}); "
        "artifact.complete_quest and artifact.submit_paper_bundle still refuse while runs are pending; "
        "run ds-gate doctor"
    )


def insert(text: str, lines: list[str]) -> str:
    """``lines`` before main's ``- selected_memory:`` (PR #60's place), else at the end; none: ``text`` as it is."""
    if not lines:
        return text
    added = "\n".join(lines)
    at = text.find(MEMORY_ANCHOR)
    return text[:at] + "\n" + added + text[at:] if at >= 0 else text + "\n" + added


def rule_lines(builder: Any, module: Any, quest_root: Any, skill_id: str, active_anchor: str) -> list[str]:
    """ds-gate's lines for a stage turn (main's own stage skills; PR #60's guard); none for the rest."""
    try:
        if skill_id not in module.current_standard_skills(builder.repo_root):
            return []
        request = {
            "op": "prompt",
            "skill_id": skill_id,
            "active_anchor": active_anchor,
            "global_default": wrap.config().get("memory_global_scope") is True,
        }
        return clean(wrap.judge(wrap.about(builder, quest_root, request), timeout=TIMEOUT).get("lines"))
    except Exception as exc:  # the prompt is built whatever happens here
        return [failsafe(exc)]


def _priority(original: Any, module: Any) -> Any:
    @functools.wraps(original)
    def _priority_memory_block(
        self: Any, quest_root: Any, *, skill_id: Any, active_anchor: Any, user_message: Any
    ) -> Any:
        text = original(self, quest_root, skill_id=skill_id, active_anchor=active_anchor, user_message=user_message)
        if not isinstance(text, str):
            return text
        return insert(text, rule_lines(self, module, quest_root, str(skill_id), str(active_anchor)))

    return _priority_memory_block


def _companions(original: Any) -> Any:
    @functools.wraps(original)
    def _companion_skill_paths_block(self: Any) -> Any:
        text = original(self)
        if not isinstance(text, str) or any(line.startswith(SKILL_LINE) for line in text.splitlines()):
            return text  # main's own distill skill, when it has one, wins
        line = SKILL_LINE + str(skill_path())
        return f"{text}\n{line}" if text else line

    return _companion_skill_paths_block


def wrap_builder_module(module: Any) -> list[str]:
    """Wrap ``PromptBuilder``'s two blocks, or nothing (the problems) when a shape is not main's."""
    cls = getattr(module, "PromptBuilder", None)
    problems: list[str] = wrap.shape_problems(cls, METHOD_SHAPES, "PromptBuilder")
    problems += wrap.shape_problems(module, MODULE_SHAPES, BUILDER)
    if not skill_path().is_file():
        problems.append(f"the distill skill {skill_path()} is missing (install again)")
    if problems:
        return problems
    for name, make in (
        ("_priority_memory_block", functools.partial(_priority, module=module)),
        ("_companion_skill_paths_block", _companions),
    ):
        original = cls.__dict__.get(name) or getattr(cls, name)
        _PROMPT_ORIGINALS.append((cls, name, original))
        state()["wrapped"].append(f"PromptBuilder.{name}")
        setattr(cls, name, make(original))
    return []


def patch(module: Any) -> None:
    """``wrap.patch`` for ``deepscientist.prompts.builder`` when ``--prompts`` is on."""
    try:
        problem = wrap.version_problem()
        problems = [problem] if problem else wrap_builder_module(module)
    except Exception as exc:
        problems = [f"{type(exc).__name__}: {exc}"]
    if problems:
        refuse_prompts("; ".join(problems))
    else:
        state().update(state="wrapped", reason=None)
