"""A quest's own settings: ``.ds-gate.yaml`` and ``[tool.ds-gate]``, which may only make the gate stricter.

The quest's agent writes both files, so only what cannot lower a verdict applies
(``from_quest``); the rest is reported with the trusted setting that would apply it
(docs/configuration.md). What ds-gate cannot read or does not know sets *no* default and is a
``waiver.invalid`` finding, and closure stops on it (``refuse_unread``): a typo (``requre:
true``) must not quietly leave the gate weaker than the quest meant. ``read_quest_config`` reads
both files once per run, at the quest root only, bounded, so a run judges one version of them.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from ds_gate.config.baselines import Baseline, quest_baselines
from ds_gate.config.files import quest_file
from ds_gate.config.settings import DEFAULT_KEYS, load, shown_config_path
from ds_gate.config.waiver_file import WAIVER_INVALID, Waiver, waivers_of
from ds_gate.io import schemas
from ds_gate.io.yamldoc import YamlError, load_yaml
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.layout import PYPROJECT
from ds_gate.kernel.layout import QUEST_CONFIG as FILE
from ds_gate.model.findings import Finding
from ds_gate.sources.memory import jsonable

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli, tomllib's own source, is a dependency there
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

TABLE = "[tool.ds-gate]"
ORIGIN = {FILE: FILE, PYPROJECT: f"{PYPROJECT} {TABLE}"}


class Defaults(NamedTuple):
    """The defaults that apply, where each came from, and what stopped a file from applying."""

    values: dict[str, Any]
    origins: dict[str, str]
    problems: list[Finding]  # of pyproject.toml only: .ds-gate.yaml's are the waivers' findings already
    yaml_problem: str | None = None  # why .ds-gate.yaml sets no default (doctor says it)


ENTRY_LISTS = ("waivers", "baselines")  # a bad entry of either spoils that entry only, not the file


def _schema_problems(data: Any, *, waivers_too: bool) -> list[tuple[str, str | None]]:
    """(message, hint) of each schema error that concerns the file as a whole (a bad waiver
    entry spoils that waiver only, not the defaults beside it)."""
    return [
        (err.message.replace("the record", "the configuration"), err.hint)
        for err in schemas.errors("ds_gate_config", data)
        if waivers_too or not (err.path and err.path[0] in ENTRY_LISTS and len(err.path) > 1)
    ]


def _pick(data: dict[str, Any]) -> dict[str, Any]:
    return {key: data[key] for key in DEFAULT_KEYS if key in data}


def _yaml_defaults(text: str | None, problem: str | None) -> tuple[dict[str, Any], str | None]:
    """``.ds-gate.yaml``'s defaults, or ({}, why none applies)."""
    if text is None:
        return {}, problem

    try:
        data = jsonable(load_yaml(text))
    except (YamlError, ValueError, RecursionError) as exc:
        return {}, f"{FILE} is not valid YAML: {exc}"
    if data is None:
        return {}, None
    problems = _schema_problems(data, waivers_too=False)
    if problems:
        return {}, f"{FILE}: {problems[0][0]}"
    return _pick(data), None


def _invalid(message: str, hint: str | None = None) -> Finding:
    return WAIVER_INVALID.at(
        PYPROJECT, message, hint=(hint + "; " if hint else "") + f"until it is fixed no default of {TABLE} applies"
    )


def parse_pyproject(text: str, loads: Any) -> tuple[dict[str, Any], list[Finding]]:
    """The defaults of a pyproject text's ``[tool.ds-gate]`` table (and its decision
    actions), or ({}, what is wrong). ``loads`` is ``tomllib.loads``, or None where Python
    has no TOML reader."""
    if "ds-gate" not in text:
        return {}, []  # no table: nothing to parse (and no TOML reader to load)
    if loads is None:
        return {}, [
            _invalid(
                f"{PYPROJECT} has a {TABLE} table, which Python 3.10 cannot read without tomli",
                f"pip install tomli, move these settings to {FILE}, or run ds-gate on Python 3.11 or newer",
            )
        ]
    try:
        data = loads(text)
    except ValueError as exc:  # tomllib.TOMLDecodeError
        return {}, [_invalid(f"{PYPROJECT} is not valid TOML: {exc}")]
    table = data.get("tool", {}).get("ds-gate") if isinstance(data.get("tool"), dict) else None
    if table is None:
        return {}, []
    if not isinstance(table, dict):
        return {}, [_invalid(f"{TABLE} in {PYPROJECT} is not a table")]
    for key in ENTRY_LISTS:
        if key in table:
            return {}, [
                _invalid(f"{TABLE} in {PYPROJECT} has {key}, which live in {FILE} only", f"move the {key} to {FILE}")
            ]
    problems = [_invalid(f"{TABLE}: {message}", hint) for message, hint in _schema_problems(table, waivers_too=True)]
    if problems:
        return {}, problems
    return {key: table[key] for key in (*DEFAULT_KEYS, "decision_actions") if key in table}, []


def _pyproject_defaults(text: str | None, problem: str | None) -> tuple[dict[str, Any], list[Finding]]:
    """``[tool.ds-gate]``'s defaults and decision actions, or ({}, what is wrong)."""
    if text is None:
        return {}, [_invalid(problem)] if problem else []
    return parse_pyproject(text, None if tomllib is None else tomllib.loads)


def _defaults(
    root: Path, yaml_found: tuple[dict[str, Any], str | None], toml_found: tuple[dict[str, Any], list[Finding]]
) -> Defaults:
    """Both files' defaults; a key both set differently is a finding, and ``.ds-gate.yaml``'s value stands."""
    from_yaml, yaml_problem = yaml_found
    from_toml, problems = toml_found[0], list(toml_found[1])
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for name, found in ((PYPROJECT, _pick(from_toml)), (FILE, from_yaml)):
        for key, value in found.items():
            if key in values and values[key] != value:
                problems.append(
                    _invalid(
                        f"{key} is {shown(value)} in {FILE} and {shown(values[key])} in {TABLE}",
                        f"set {key} in one of them",
                    )
                )
            values[key], origins[key] = value, ORIGIN[name]
    if "home" in values:
        values["home"] = str((root / os.path.expanduser(values["home"])).resolve())
    return Defaults(values, origins, problems, yaml_problem)


class Ignored(NamedTuple):
    """A quest-written setting that is not applied, and the trusted setting that would apply it."""

    key: str
    value: Any
    origin: str
    instead: str

    def note(self) -> str:
        return (
            f"{self.key}: {_shown(self.value)} in {self.origin} is not applied: it is written inside the quest, which "
            f"may only make the gate stricter; to apply it, use {self.instead.format(config=shown_config_path())}"
        )


INSTEAD = {  # {config}: the user's configuration file, as settings.shown_config_path names it
    "home": "--home DIR, $DEEPSCIENTIST_HOME, or home in the user's configuration",
    "refs": "--refs PATTERN, or refs in the user's configuration ({config})",
    "folders": "--from-folders, or source: folders in the user's configuration ({config})",
    "git": "--from-git, or source: git in the user's configuration ({config})",
}


def _shown(value: Any) -> str:
    return "[" + ", ".join(map(str, value)) + "]" if isinstance(value, list) else str(value)


def from_quest(found: Defaults) -> tuple[dict[str, Any], list[Ignored]]:
    """(what of the quest's settings applies, what is ignored): only what cannot lower a verdict applies."""
    applied: dict[str, Any] = {}
    ignored: list[Ignored] = []
    for key, value in found.values.items():
        if key == "format" or (key == "require" and value is True) or (key == "source" and value in ("auto", "both")):
            applied[key] = value
        elif key in ("home", "refs") or key == "source":
            ignored.append(Ignored(key, value, found.origins[key], INSTEAD[key if key != "source" else value]))
    return applied, ignored


@dataclass(frozen=True, slots=True)
class QuestConfig:
    """What the quest's configuration files say, read once (``read_quest_config``) and handed
    to every step that needs it: the command's options, the record rules, the review encoding,
    the quest-only actions, the waivers, ``refuse_unread``."""

    root: Path
    present: bool  # either file is there
    defaults: Defaults  # empty when neither file is there
    actions: tuple[str, ...]  # the decision actions the quest names: a fork's; a broken file adds none
    waivers: tuple[list[Waiver], list[Finding]]  # its own waivers and what is wrong with them (and with its baselines)
    baselines: tuple[Baseline, ...] = ()  # the baselines it proposes (config.baselines): applied only where accepted

    @property
    def configured(self) -> Defaults | None:
        """The defaults, or None when the quest has neither file (the common case: two ``lstat``s).
        Their ``problems`` are reported beside the waivers' own findings; ``refuse_unread`` judges them."""
        return self.defaults if self.present else None


def read_quest_config(root: Path) -> QuestConfig:
    """Read ``.ds-gate.yaml`` and ``pyproject.toml`` at the quest root once, and parse each for
    every reader (their parsers differ on purpose: a broken file sets no default, adds no
    action and no waiver, each in its own words)."""
    present = os.path.lexists(root / FILE) or os.path.lexists(root / PYPROJECT)
    yaml_text, yaml_problem = quest_file(root, FILE)
    toml_found = _pyproject_defaults(*quest_file(root, PYPROJECT))
    waivers, problems = waivers_of(yaml_text, yaml_problem)
    baselines, wrong = quest_baselines(yaml_text, WAIVER_INVALID)
    return QuestConfig(
        root=root,
        present=present,
        defaults=_defaults(root, _yaml_defaults(yaml_text, yaml_problem), toml_found),
        actions=tuple(_actions(yaml_text, toml_found[0])),
        waivers=(waivers, problems + wrong),
        baselines=tuple(baselines),
    )


def configured_require(config: QuestConfig) -> bool:
    """Whether ``require`` is set, by the trusted configuration or the quest's (``config``, which
    may make the gate only stricter): read by the hooks only once a commit or push finalizes
    (never on an ordinary checkpoint's path), so a quest that sets it is gated by its hooks as by ``closure``."""
    trusted = load()
    return (trusted.problem is None and trusted.values.get("require") is True) or config.defaults.values.get(
        "require"
    ) is True


def _actions(text: str | None, toml: dict[str, Any]) -> list[str]:
    """The extra decision actions of ``.ds-gate.yaml``'s text and ``[tool.ds-gate]``'s parsed values."""
    actions: list[str] = []
    if text is not None:
        try:
            data = load_yaml(text)
        except ValueError:
            data = None
        found = data.get("decision_actions") if isinstance(data, dict) else None
        actions += [a.strip() for a in found if isinstance(a, str) and a.strip()] if isinstance(found, list) else []
    actions += [a.strip() for a in toml.get("decision_actions", []) if a.strip()]
    return actions


def refuse_unread(root: Path, found: Defaults) -> None:
    """Closure, finalization commits and the pre-push gate stop (exit 2) on a configuration
    they cannot read, as on a ``quest.yaml`` they cannot read: what it fails to say may be
    ``require: true``, and a gate that passes then is worse than none."""
    problems = ([found.yaml_problem] if found.yaml_problem else []) + [f.message for f in found.problems]
    if problems:
        raise QuestError(
            f"{root}: {'; '.join(problems)}. The gate cannot tell which defaults the quest sets (require, "
            "home, source, refs), so it does not pass",
            "fix the file (`ds-gate check` shows where)",
            ": ",
        )
