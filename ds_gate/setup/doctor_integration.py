"""``doctor``'s line about the DeepScientist integration: installed, loaded, matching.

DeepScientist may rebuild its runtime environment when it updates itself, so doctor looks
every time: ds-gate's files as this ds-gate would write them, its interpreter answering, and
DeepScientist's own Python (run isolated, ``-I``) reporting its service wrapped, or why not.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

from ds_gate.integration.installer import (
    CONFIG,
    ENVS,
    PTH,
    bridge_problem,
    env_python,
    probe,
    read_config,
    remembered,
    runtime_files,
)
from ds_gate.kernel.errors import QuestError
from ds_gate.model.reports import FAIL, OK, WARN, Check
from ds_gate.sources.memory import resolve_home

NAME = "deepscientist integration"
LOADED = (
    "import json, deepscientist.artifact.service, deepscientist.mcp.server, _ds_gate_ds_boot as b; "
    "print(json.dumps(b.status()))"
)
BUILDER = (
    "import importlib\ntry:\n importlib.import_module('deepscientist.prompts.builder')\nexcept Exception:\n pass\n"
)
PROMPTS_OFF = "prompts: off (ds-gate install --deepscientist --prompts adds the RFC's rules to main's prompts)"


def _loaded(python: str, prompts: bool = False) -> dict[str, object]:
    """The integration's status in DeepScientist's own Python; with ``--prompts``, after its prompt builder loaded."""
    code = (BUILDER if prompts else "") + LOADED
    try:
        done = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"state": "broken", "reason": f"DeepScientist's Python did not run: {exc}"}
    try:
        data = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        last = (done.stderr.strip().splitlines() or ["no answer"])[-1]
        return {"state": "broken", "reason": f"DeepScientist's Python could not load it: {last}"}
    return data if isinstance(data, dict) else {"state": "broken", "reason": "no status"}


def integration_check(home: str | None, root: Path | None = None) -> Check:
    """One line; never raises (a check that cannot look says so)."""
    path = resolve_home(home, root)
    home_arg = shlex.quote(str(path))  # the home may come from where the quest's links lead: pasted, it runs
    install = f"ds-gate install --deepscientist --home {home_arg}"
    env = next((path / rel for rel in ENVS if os.path.isfile(env_python(path / rel))), None)
    if env is None:
        return Check(NAME, OK, f"not installed (no DeepScientist runtime Python under {path}); opt-in: {install}")
    try:
        target = probe(path, env)
    except QuestError as exc:
        return Check(NAME, WARN, str(exc), "start `ds` once so its launcher repairs the environment")
    settings = read_config(target.site)
    if settings is None and not os.path.lexists(target.site / PTH):
        if remembered(path):
            return Check(
                NAME,
                WARN,
                f"installed into {env} earlier, but its files are gone: DeepScientist rebuilt its "
                "runtime environment (an update); complete_quest and submit_paper_bundle no longer ask "
                "ds-gate",
                install,
            )
        return Check(NAME, OK, f"not installed in {env} (opt-in: {install})")
    if settings is None:
        return Check(NAME, FAIL, f"{target.site / PTH} is there but {CONFIG} is not: a broken install", install)
    expected = runtime_files(settings)
    differ = [name for name, text in expected.items() if _read(target.site / name) != text]
    if differ:
        return Check(
            NAME,
            WARN,
            f"ds-gate's files in {target.site} are missing or not this ds-gate's "
            f"({', '.join(differ)}): DeepScientist was updated or another ds-gate installed them",
            install,
        )
    python = str(settings.get("python"))
    problem = bridge_problem(python)
    if problem is not None:
        return Check(
            NAME,
            FAIL,
            f"installed, but ds-gate's interpreter {python} does not answer ({problem}): "
            "complete_quest, submit_paper_bundle and review records are refused until it does",
            f"{install} (from the ds-gate you use), or ds-gate install --deepscientist --undo --home {home_arg}",
        )
    status = _loaded(str(target.python), settings.get("prompts") is True)
    if status.get("state") != "wrapped":
        return Check(
            NAME,
            WARN,
            f"installed in {env} but it wraps nothing: {status.get('reason')}",
            f"use a ds-gate that knows DeepScientist {target.deepscientist}, or "
            f"ds-gate install --deepscientist --undo --home {home_arg}",
        )
    extra = "; memory.write defaults to global" if settings.get("memory_global_scope") else ""
    found = status.get("problems")
    problems = [str(p) for p in found] if isinstance(found, list) else []
    prompts, prompts_ok = _prompts(status.get("prompts"))
    return Check(
        NAME,
        WARN if problems or not prompts_ok else OK,
        f"installed, loaded and matching DeepScientist {target.deepscientist} in {env} "
        f"(verdicts from {python}){extra}" + (f"; {'; '.join(problems)}" if problems else "") + f"; {prompts}",
    )


def _prompts(found: object) -> tuple[str, bool]:
    """The ``--prompts`` switch as DeepScientist's process reports it, and whether that is fine."""
    state = found.get("state") if isinstance(found, dict) else None
    if state == "wrapped":
        return "prompts: on (the RFC's rules and the distill skill reach main's prompts)", True
    if state in (None, "off"):
        return PROMPTS_OFF, True
    reason = found.get("reason") if isinstance(found, dict) else None
    return f"prompts: on but adds nothing: {reason or state}", False


def _read(path: os.PathLike[str]) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None
