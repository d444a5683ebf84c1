"""What the pre-commit framework runs for one of ds-gate's hooks, field by field, as pre-commit
(3.2 to 4.x) reads a config: ``repository._hook`` lays the config's keys over the manifest's
hook (a ``repo: local`` hook is the config's alone, over pre-commit's defaults) and takes
``language_version`` and ``stages`` from the config's top level when the hook leaves them out;
``commands/run.py`` runs ``shlex.split(entry) + args`` in the language's environment, on the
staged files the top-level and the hook's filters keep, unless ``always_run``. A field whose
value changes what runs, or keeps it from running, is a finding that names it and its fix:
doctor vouches for a hook only where what runs is ds-gate's own hook. Pure: data in, findings out.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from ds_gate.kernel.errors import shown
from ds_gate.kernel.layout import pre_commit_files_pattern
from ds_gate.setup.install import interpreter_problem

Finding = tuple[bool, str]  # (fails, what the field does and its fix); not failing: doctor cannot tell
# .pre-commit-hooks.yaml's guarding hooks, the fields that decide what runs (tests/acceptance/test_blind_spots.py
# checks them against the file); each runs at the stage named last
MANIFEST: dict[str, dict[str, Any]] = {
    "ds-gate-validate": {
        "entry": "ds-gate validate --checkpoint",
        "language": "python",
        "files": pre_commit_files_pattern(),
        "stages": ["pre-commit", "pre-merge-commit", "manual"],
    },
    "ds-gate-closure": {
        "entry": "ds-gate commit-check --no-validate",
        "language": "python",
        "always_run": True,
        "pass_filenames": False,
        "stages": ["pre-commit", "pre-merge-commit"],
    },
    "ds-gate-pre-push": {
        "entry": "ds-gate pre-push",
        "language": "python",
        "always_run": True,
        "pass_filenames": False,
        "stages": ["pre-push"],
    },
}
STAGE = {"ds-gate-validate": "pre-commit", "ds-gate-closure": "pre-commit", "ds-gate-pre-push": "pre-push"}
# pre-commit's MANIFEST_HOOK_DICT defaults of the fields that decide what runs
DEFAULTS: dict[str, Any] = {
    "files": "",
    "exclude": "^$",
    "types": ["file"],
    "types_or": [],
    "exclude_types": [],
    "additional_dependencies": [],
    "args": [],
    "always_run": False,
    "pass_filenames": True,
    "language_version": "default",
    "stages": [],
}
RENAMED_LANGUAGES = {"system": "unsupported", "script": "unsupported_script"}  # clientlib._translate_language
RENAMED_STAGES = {"commit": "pre-commit", "merge-commit": "pre-merge-commit", "push": "pre-push"}
ALL_STAGES = frozenset(
    {"commit-msg", "post-checkout", "post-commit", "post-merge", "post-rewrite", "pre-commit"}
    | {"pre-merge-commit", "pre-push", "pre-rebase", "prepare-commit-msg", "manual"}
)
PATH_PYTHON = re.compile(r"python(\d+(\.\d+)*)?")  # a name virtualenv finds on the PATH, as `ds-gate` is
REFUSED = "pre-commit refuses the config, so every commit fails and DeepScientist's checkpoints stop"


def hook_findings(hook_id: str, hook: dict[str, Any], top: dict[str, Any], local: bool) -> list[Finding]:
    """What in ``hook`` (an entry of ``repos[].hooks`` with a guarding id, under a ``repo: local``
    or a repository of ds-gate's hooks) and the config's top level ``top`` makes pre-commit run
    something else than ds-gate's hook ``hook_id``, or keeps it from running."""
    wanted = MANIFEST[hook_id]
    ran = {**DEFAULTS, **({} if local else wanted), **hook}
    language = ran.get("language")
    if not isinstance(language, str):
        return [(True, f"`language` is {'missing' if language is None else shown(language)}: {REFUSED}")]
    language = RENAMED_LANGUAGES.get(language, language)
    found = [_language(hook, language, local), _command(ran, wanted), _dependencies(ran, language)]
    found += [_interpreter(hook, top, ran, language), _stages(hook, top, ran, STAGE[hook_id])]
    for field in ("always_run", "pass_filenames"):
        found.append(_flag(field, ran.get(field), wanted.get(field, DEFAULTS[field])))
    if ran.get("always_run") is False and wanted.get("always_run", False) is False:
        found += _filters(ran, top, wanted)
    return [f for f in found if f is not None]


def _language(hook: dict[str, Any], language: str, local: bool) -> Finding | None:
    if language in ("python", "unsupported"):  # ds-gate's own environment, or the PATH's ds-gate
        return None
    runs = {
        "unsupported_script": "the entry's first word as a file of the repository (`./ds-gate`: the quest's program)",
        "pygrep": "a regex search, not a program",
        "fail": "nothing: it fails every commit",
    }.get(language, f"the entry in a {language} environment pre-commit builds")
    fix = "language: system" if local else "remove `language`"
    return True, f"`language: {shown(hook.get('language'))}` runs {runs}, not ds-gate (fix: {fix})"


def _command(ran: dict[str, Any], wanted: dict[str, Any]) -> Finding | None:
    entry, args = ran.get("entry"), ran.get("args")
    if not isinstance(entry, str) or not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return True, f"`entry` {shown(entry)} with `args` {shown(args)}: {REFUSED}"
    try:
        command = [*shlex.split(entry), *args]
    except ValueError as exc:
        return True, f"`entry: {shown(entry)}` cannot be split into words ({exc}): {REFUSED}"
    if command == shlex.split(wanted["entry"]):
        return None
    field = "args" if args else "entry"
    return True, (
        f"`{field}` makes it run {shown(shlex.join(command))}, not `{wanted['entry']}` "
        f"(fix: entry: {wanted['entry']}, no args)"
    )


def _dependencies(ran: dict[str, Any], language: str) -> Finding | None:
    deps = ran.get("additional_dependencies")
    if deps == []:
        return None
    if language != "python" or not isinstance(deps, list):
        return True, f"`additional_dependencies: {shown(deps)}`: {REFUSED} (fix: remove it)"
    return True, (
        f"`additional_dependencies: {shown(deps)}`: pre-commit installs them into the hook's own "
        "environment, first on its PATH, so one of them may bring its own `ds-gate` (a wheel inside the "
        "quest: the agent's program) or replace a module ds-gate imports (fix: remove additional_dependencies)"
    )


def _interpreter(hook: dict[str, Any], top: dict[str, Any], ran: dict[str, Any], language: str) -> Finding | None:
    """``language_version``, or the top-level ``default_language_version`` for the language: the
    interpreter virtualenv builds the hook's environment with (and, from ds-gate's repository, runs)."""
    version, field = ran.get("language_version"), "language_version"
    if version == "default":
        defaults = top.get("default_language_version", {})
        if not isinstance(defaults, dict):
            return True, f"`default_language_version: {shown(defaults)}`: {REFUSED}"
        version, field = defaults.get(language, "default"), f"default_language_version: {language}"
    if version == "default":
        return None
    said = f"`{field}: {shown(version)}`"
    if language != "python" or not isinstance(version, str):
        return True, f"{said}: {REFUSED} (fix: remove it)"
    if PATH_PYTHON.fullmatch(version):
        return None
    try:  # a NUL in it: no file pre-commit could run either
        path = os.path.expanduser(version)
    except ValueError:
        path = "\0"
    if not os.path.isabs(path) and "\0" not in path:
        return False, (
            f"{said}: virtualenv looks that interpreter up itself, so doctor cannot tell which program "
            "builds the hook's environment (fix: remove it, or name a Python outside the quest by its absolute path)"
        )
    if not os.path.lexists(path):
        return True, f"{said} names no file: pre-commit cannot build the hook's environment (fix: remove it)"
    problem = interpreter_problem(path)
    if problem is None:
        return None
    return True, f"{said} builds the hook's environment with an interpreter {problem} (fix: remove it)"


def _stages(hook: dict[str, Any], top: dict[str, Any], ran: dict[str, Any], stage: str) -> Finding | None:
    stages, field = ran.get("stages"), "stages"
    if stages == []:
        stages, field = top.get("default_stages", sorted(ALL_STAGES)), "default_stages"
    if not isinstance(stages, list) or not all(isinstance(s, str) for s in stages):
        return True, f"`{field}: {shown(stages)}`: {REFUSED}"
    if stage in {RENAMED_STAGES.get(s, s) for s in stages}:
        return None
    when = "push" if stage == "pre-push" else "commit"
    return True, f"`{field}: {shown(stages)}` leaves out {stage}: the hook never runs on a {when} (fix: add {stage})"


def _flag(field: str, value: object, wanted: bool) -> Finding | None:
    if value is wanted:
        return None
    if not isinstance(value, bool):
        return True, f"`{field}: {shown(value)}`: {REFUSED}"
    does = {
        ("always_run", False): "the hook runs only on a commit whose staged files its filters keep, so a "
        "finalization can pass with the hook skipped",
        ("always_run", True): "the hook also runs with no file, and `ds-gate validate` without one stops the commit",
        ("pass_filenames", True): "pre-commit adds the staged files to a command that takes none, so it stops "
        "every commit that stages a file",
        ("pass_filenames", False): "`ds-gate validate` gets no file and stops every commit that stages a record",
    }[(field, value)]
    return True, f"`{field}: {str(value).lower()}`: {does} (fix: remove {field})"


def _filters(ran: dict[str, Any], top: dict[str, Any], wanted: dict[str, Any]) -> list[Finding | None]:
    """The files a hook that is not ``always_run`` is given: the top-level ``files``/``exclude``
    first (a repository's own, which doctor cannot read for meaning: a warning), then its own."""
    out: list[Finding | None] = []
    for field, default in (("files", ""), ("exclude", "^$")):
        if top.get(field, default) != default:
            out.append(
                (
                    False,
                    f"the top-level `{field}: {shown(top.get(field))}` filters the files of every hook, this one's "
                    "included; doctor cannot tell whether it leaves a record or card out (fix: keep artifacts/ "
                    "and memory/ in)",
                )
            )
    keep = {"files": ("", wanted.get("files", "")), "exclude": ("^$",), "types": (["file"],)}
    keep |= {"types_or": ([],), "exclude_types": ([],)}
    for field, allowed in keep.items():
        if ran.get(field) not in allowed:
            out.append((True, f"`{field}: {shown(ran.get(field))}` changes the files it sees (fix: remove {field})"))
    return out
