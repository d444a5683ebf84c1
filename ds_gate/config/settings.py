"""Trusted settings: the only configuration that may lower a verdict, read from outside the quest.

What the quest's tree says may only make the gate stricter (``config.quest``, ``waivers``); what
may make it laxer comes from the person running ds-gate: flags, environment, and one YAML file,
the first of ``--config FILE``, the file the hooks or the integration pinned (``kernel.places``),
``$DS_GATE_CONFIG``, ``$XDG_CONFIG_HOME/ds-gate/config.yaml`` (else ``~/.config/...``). A file
inside a quest or a home is not trusted, and one that cannot be read stops the gate (exit 2):
what it fails to say may be a waiver's absence or ``require: true``. Its keys:
docs/configuration.md; the trust rules: docs/threat-model.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.config.baselines import Baseline, trusted_baselines
from ds_gate.io import schemas
from ds_gate.io.yamldoc import YamlError, load_yaml
from ds_gate.kernel import fs
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.places import PIN_CONFIG, env_config_file, given_through_link, pinned, planted_link
from ds_gate.kernel.places import (
    agent_writable as agent_writable,  # re-exported: doctor judges where a hook repository lies
)
from ds_gate.kernel.places import pins as pins  # re-exported: the hooks pin these places and import no io
from ds_gate.kernel.places import pins_note as pins_note
from ds_gate.sources.memory import jsonable

if TYPE_CHECKING:
    from ds_gate.kernel.answers import Watch

ENV = "DS_GATE_CONFIG"
DEFAULT_KEYS = ("home", "require", "format", "source", "refs")
KEYS = (*DEFAULT_KEYS, "waivers", "accept_quest_waivers", "no_require", "decision_actions", "recall_jsonl", "baselines")


@dataclass(frozen=True)
class Trusted:
    """The trusted configuration file's settings (all empty when there is none)."""

    path: Path | None = None
    origin: str = "no trusted configuration file"  # how the file was chosen, as the reports say it
    values: dict[str, Any] = field(default_factory=dict)
    waivers: tuple[dict[str, Any], ...] = ()  # checked entries: index, rule, reason, id, path, expires, quest
    accept: tuple[Path, ...] = ()  # quest roots whose .ds-gate.yaml waivers are accepted
    off: tuple[Path, ...] = ()  # quest roots whose gate is off (no_require)
    actions: tuple[str, ...] = ()  # decision actions the user's DeepScientist (a fork) accepts
    recall_jsonl: tuple[Path, ...] = ()  # JSONL lesson files the agent's recall also searches (ScienceClaw's)
    baselines: tuple[Baseline, ...] = ()  # per quest: the runs reported as baselined, not pending (config.baselines)
    problem: str | None = None  # why the file cannot be used (the gate stops on it)
    notes: tuple[str, ...] = ()  # entries that match no quest, and why (every report shows them)
    recall_jsonl_named: tuple[str, ...] = ()  # recall_jsonl as named, before its links were resolved

    @property
    def label(self) -> str:
        return f"{self.path} ({self.origin})" if self.path is not None else self.origin

    def accepts(self, root: Path) -> str | None:
        """The trusted setting that accepts the quest's own waivers, or None."""
        return f"accept_quest_waivers in {self.path}" if matchable(root) in self.accept else None

    def turns_off(self, root: Path) -> str | None:
        """The trusted setting that turns the quest's gate off, or None."""
        return f"no_require in {self.path}" if self.problem is None and matchable(root) in self.off else None

    def waivers_for(self, root: Path) -> list[dict[str, Any]]:
        """The trusted waivers that apply to the quest at ``root`` (``waiver_file.Waiver`` makes them)."""
        real = matchable(root)
        return [w for w in self.waivers if w["quest"] is None or (real and w["quest"] == str(real))]

    def baselines_for(self, root: Path) -> list[Baseline]:
        """The trusted baselines of the quest at ``root`` (none from a file that cannot be used)."""
        real = matchable(root)
        return [b for b in self.baselines if real and b.quest == str(real)] if self.problem is None else []

    def inside(self, root: Path) -> bool:
        return self.path is not None and fs.is_inside(root.resolve(), self.path.resolve())


def matchable(root: Path) -> Path | None:
    """What a trusted entry may match at ``root``: its real path, or None through a link inside a
    quest or a home (``quests/002 -> <a switched-off quest's name>``): neither side may be re-pointed."""
    return None if planted_link(root) is not None or given_through_link(root) else root.resolve()


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return (Path(base) if base and os.path.isabs(base) else Path.home() / ".config") / "ds-gate" / "config.yaml"


PINNED = "pinned by ds-gate install"


def shown_config_path() -> str:
    """The user's configuration file as messages name it (``~`` kept when it is the default)."""
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return str(user_config_path()) if base and os.path.isabs(base) else "~/.config/ds-gate/config.yaml"


def config_file(flag: str | None = None) -> tuple[Path, str, bool]:
    """(the file, how it was chosen, whether it was named explicitly: then it must exist)."""
    if flag:
        return Path(flag).expanduser(), "--config", True
    pin = pinned(PIN_CONFIG)
    if pin is not None:  # the hook's or the integration's: the runner's HOME/XDG_* and $DS_GATE_CONFIG do not move it
        return Path(pin), PINNED, False
    path, origin, explicit = env_config_file()
    return Path(path), origin, explicit


_CACHE: dict[tuple[str, str, bool, int, int], Trusted] = {}


def load(flag: str | None = None, watch: Watch | None = None) -> Trusted:
    """The trusted settings; never raises (a broken file is ``problem``: the gate commands refuse on it,
    a checkpoint ignores it). ``watch`` gets what they were read from (a kept recall answer)."""
    path, origin, explicit = config_file(flag)
    if watch is not None:
        watch.look(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return Trusted(path, origin, problem=f"{origin} names {path}, which does not exist") if explicit else Trusted()
    except OSError as exc:
        return Trusted(path, origin, problem=f"{path} ({origin}) cannot be read: {exc.strerror or exc}")
    reachable = agent_writable(path, seen=watch.kind if watch is not None else None)
    if reachable is not None:
        return Trusted(path, origin, problem=reachable_problem(path, origin, reachable))
    key = (str(path), origin, explicit, st.st_mtime_ns, st.st_size)
    if key not in _CACHE:
        _CACHE[key] = _read(path, origin)
    trusted = _CACHE[key]
    if watch is not None:
        for named, resolved in zip(trusted.recall_jsonl_named, trusted.recall_jsonl, strict=True):
            watch.real(named, resolved)
    return trusted


def _read(path: Path, origin: str) -> Trusted:
    def bad(why: str) -> Trusted:
        return Trusted(path, origin, problem=f"{path} ({origin}): {why}")

    try:
        data = jsonable(load_yaml(fs.read_file(path).decode("utf-8-sig")))
    except fs.TooLarge as exc:
        return bad(f"it is {exc.strerror}")
    except (OSError, UnicodeDecodeError) as exc:
        return bad(f"it cannot be read: {exc}")
    except (YamlError, ValueError, RecursionError) as exc:
        return bad(f"it is not valid YAML: {exc}")
    if data is None:
        return Trusted(path, origin)
    if not isinstance(data, dict):
        return bad("it is not a mapping")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        return bad(f"unknown key(s) {', '.join(map(repr, unknown))}; the keys are {', '.join(KEYS)}")
    base = path.parent
    try:
        values = _defaults(data, base)
        notes: list[str] = []
        waivers = _waivers(data.get("waivers") or [], base, notes)
        accept = _quests("accept_quest_waivers", data.get("accept_quest_waivers") or [], base, notes)
        off = _quests("no_require", data.get("no_require") or [], base, notes)
        actions = _actions(data.get("decision_actions") or [])
        jsonl, named = _jsonl_files(data.get("recall_jsonl") or [], base)
        baselines = trusted_baselines(
            data.get("baselines") or [], str(path), lambda key, text: _quest_entry(key, text, base, notes)
        )
    except ValueError as exc:
        return bad(str(exc))
    return Trusted(
        path,
        origin,
        values,
        tuple(waivers),
        tuple(accept),
        tuple(off),
        tuple(actions),
        tuple(jsonl),
        tuple(baselines),
        notes=tuple(f"{n} (in {path})" for n in notes),
        recall_jsonl_named=tuple(named),
    )


def _actions(entries: Any) -> list[str]:
    """``decision_actions``: the actions a fork of DeepScientist adds (med-deepscientist's)."""
    if not isinstance(entries, list) or not all(isinstance(a, str) and a.strip() for a in entries):
        raise ValueError("decision_actions must be a list of action names")
    return [a.strip() for a in entries]


def _jsonl_files(entries: Any, base: Path) -> tuple[list[Path], list[str]]:
    """``recall_jsonl``: JSONL lesson files (ScienceClaw's) the agent's ``list_knowledge_summaries`` searches
    too, relative to this file, resolved and as named; whether each can be read is recall's to say, each time."""
    if isinstance(entries, str):
        entries = [entries]
    if not isinstance(entries, list) or not all(isinstance(e, str) and e.strip() for e in entries):
        raise ValueError("recall_jsonl is a list of JSONL file paths (relative to this file)")
    return [_resolve(e.strip(), base) for e in entries], [str(base / os.path.expanduser(e.strip())) for e in entries]


def _resolve(text: str, base: Path) -> Path:
    return (base / os.path.expanduser(text)).resolve()


UNMATCHED = Path("/\0matches no quest")  # a path no quest root can be


def _quest_entry(key: str, text: str, base: Path, notes: list[str]) -> Path:
    """A quest an entry names; through a link inside a quest or a home it matches none, with a note."""
    link = planted_link(base / os.path.expanduser(text))
    if link is None:
        return _resolve(text, base)
    notes.append(
        f"{key} entry {shown(text)} matches no quest: its path leads through {link}, which a quest's agent "
        "can write; name the quest's own folder instead"
    )
    return UNMATCHED


def _defaults(data: dict[str, Any], base: Path) -> dict[str, Any]:
    picked = {key: data[key] for key in DEFAULT_KEYS if key in data}
    errors = schemas.errors("ds_gate_config", picked)
    if errors:
        raise ValueError(errors[0].message.replace("the record", "the configuration"))
    if "home" in picked:
        picked["home"] = str(_resolve(picked["home"], base))
    return picked


def _waivers(entries: Any, base: Path, notes: list[str]) -> list[dict[str, Any]]:
    if not isinstance(entries, list):
        raise ValueError("waivers is not a list")
    out: list[dict[str, Any]] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ValueError(f"waivers[{i}] is not a mapping")
        quest = entry.get("quest")
        rest = {k: v for k, v in entry.items() if k != "quest"}
        errors = schemas.errors("ds_gate_config", {"waivers": [rest]})
        if errors or (quest is not None and (not isinstance(quest, str) or not quest.strip())):
            why = errors[0].message.replace("the record", "the configuration") if errors else "quest is no path"
            raise ValueError(f"waivers[{i}]: {why}")
        try:
            expires = date.fromisoformat(rest["expires"]) if rest.get("expires") else None
        except ValueError:
            raise ValueError(f"waivers[{i}].expires is {shown(rest['expires'])}, which is no date") from None
        out.append(
            {
                "index": i,
                "rule": rest["rule"].strip(),
                "reason": rest["reason"].strip(),
                "id": rest.get("id"),
                "path": rest.get("path"),
                "expires": expires,
                "quest": str(_quest_entry(f"waivers[{i}].quest", quest, base, notes)) if quest else None,
            }
        )
    return out


def _quests(key: str, entries: Any, base: Path, notes: list[str]) -> list[Path]:
    if isinstance(entries, str):
        entries = [entries]
    if not isinstance(entries, list) or not all(isinstance(e, str) and e.strip() for e in entries):
        raise ValueError(f"{key} is a list of quest folders")
    return [_quest_entry(key, e, base, notes) for e in entries]


def reachable_problem(path: Path, origin: str, where: str) -> str:
    """Why a configuration inside a quest or a home is not trusted, and the fix."""
    return (
        f"the trusted configuration {path} ({origin}) lies inside {where}, which a quest's agent can write "
        "(a DeepScientist runner sets HOME/XDG_CONFIG_HOME there), so it is not trusted. Keep it outside every "
        f"quest and DeepScientist home and name it with ${ENV} or --config, or run `ds-gate install` (and "
        "`ds-gate install --deepscientist`) again from your own shell, which pins your own file"
    )


def refuse(trusted: Trusted, root: Path) -> None:
    """The gate commands stop (exit 2) on a trusted file they cannot use, or one inside the quest."""
    if trusted.problem:
        raise QuestError(
            f"{trusted.problem}. The gate cannot tell which trusted settings apply, so it does not pass",
            f"fix the file, or point {ENV}/--config at another",
            ": ",
        )
    if trusted.inside(root):
        raise QuestError(
            f"the trusted configuration {trusted.path} ({trusted.origin}) lies inside the quest {root}, "
            "which its agent can write, so it is not trusted",
            f"keep it outside the quest (e.g. {user_config_path()})",
            ": ",
        )
