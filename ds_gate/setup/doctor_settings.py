"""``doctor``'s settings checks: which setting came from where, trusted or not, and what was ignored.

A quest's own settings may only make the gate stricter (docs/threat-model.md); doctor names
each one the gate ignores (a quest's ``source: folders`` once got "ok" here while CI read
less than every branch) and the trusted setting that would apply it.
"""

from __future__ import annotations

from pathlib import Path

from ds_gate.config.failclosed import accept_hint
from ds_gate.config.quest import QuestConfig, from_quest, read_quest_config
from ds_gate.config.settings import ENV, KEYS, Trusted, load, user_config_path
from ds_gate.kernel.counting import counted
from ds_gate.kernel.layout import QUEST_CONFIG as FILE
from ds_gate.model.reports import FAIL, OK, WARN, Check


def _show(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _trusted(trusted: Trusted, root: Path) -> Check:
    if trusted.problem:
        return Check(
            "trusted config",
            FAIL,
            f"{trusted.problem}: closure, finalization commits and pushes stop on it",
            f"fix the file (its keys: {', '.join(KEYS)})",
        )
    if trusted.inside(root):
        return Check(
            "trusted config",
            FAIL,
            f"{trusted.label} lies inside the quest, which its agent can write: the gate refuses it",
            f"move it outside the quest, e.g. to {user_config_path()}",
        )
    if trusted.path is None:
        return Check(
            "trusted config",
            OK,
            f"no trusted configuration file ({user_config_path()}, or ${ENV}): the gate "
            "uses flags, the environment and its own defaults",
        )
    parts = [f"{key}={_show(value)}" for key, value in trusted.values.items()]
    if trusted.accepts(root):
        parts.append("accepts this quest's waivers")
    if trusted.turns_off(root):
        parts.append("turns this quest's closure gate off (no_require)")
    mine = trusted.waivers_for(root)
    if mine:
        parts.append(f"{counted(len(mine), 'waiver')} for this quest")
    shown = ", ".join(parts) if parts else "no setting for this quest"
    return Check("trusted config", OK, f"{trusted.label} (trusted): {shown}")


def _quest(config: QuestConfig) -> Check:
    found = config.defaults
    problems = [f.message for f in found.problems] + ([found.yaml_problem] if found.yaml_problem else [])
    if problems:
        return Check(
            "config",
            FAIL,
            "; ".join(problems) + ": no setting of that file applies, and check and closure fail on it",
            f"fix it (schemas/ds_gate_config.schema.json lists the keys of {FILE} and [tool.ds-gate])",
        )
    if not found.values:
        return Check(
            "config",
            OK,
            "the quest sets nothing (.ds-gate.yaml or [tool.ds-gate] in pyproject.toml); the "
            "commands use the trusted settings and their own",
        )
    applied, ignored = from_quest(found)
    shown = ", ".join(f"{key}={_show(value)} ({found.origins[key]})" for key, value in applied.items())
    message = "the quest's own settings (untrusted: they may only make the gate stricter)"
    message += f"; applied: {shown}" if shown else ""
    if ignored:
        names = ", ".join(f"{i.key}={_show(i.value)} ({i.origin})" for i in ignored)
        return Check(
            "config",
            WARN,
            f"{message}; ignored, as they would make the gate read less or look elsewhere: {names}",
            "; ".join(f"for {i.key}, use {i.instead}" for i in ignored),
        )
    return Check("config", OK, message)


def _waivers(config: QuestConfig, trusted: Trusted) -> Check | None:
    root, waivers = config.root, config.waivers[0]
    if not waivers:
        return None
    accepted = trusted.accepts(root) if trusted.problem is None else None
    if accepted:
        return Check(
            "quest waivers",
            OK,
            f"{counted(len(waivers), 'waiver')} in {FILE}, accepted by {accepted}: they lower "
            "verdicts, and each waived finding says so",
        )
    return Check(
        "quest waivers",
        WARN,
        f"{counted(len(waivers), 'waiver')} in {FILE} {'is a proposal' if len(waivers) == 1 else 'are proposals'}: written inside the quest, "
        "they waive nothing until a trusted setting accepts them",
        accept_hint(root, trusted.path),
    )


def settings_checks(root: Path) -> tuple[list[Check], tuple[str, str] | None]:
    """(the settings checks, the trusted configuration's home and where it came from, if it sets one)."""
    trusted = load()
    checks = [_trusted(trusted, root)]
    config = read_quest_config(root)
    checks.append(_quest(config))
    waivers = _waivers(config, trusted)
    if waivers is not None:
        checks.append(waivers)
    home = trusted.values.get("home") if trusted.problem is None else None
    return checks, ((str(home), f"the trusted configuration {trusted.path}") if home else None)
