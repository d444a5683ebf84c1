"""``ds-gate install --deepscientist``: put the integration into DeepScientist's runtime Python, or take it out.

Eight files go into that environment's site-packages (``MODULES``, copied from this package, the
switches in ``CONFIG``, and the ``.pth`` line; with ``--prompts`` also the ``distill`` skill,
``SKILL``); ds-gate itself is not installed there (see
``wrap.py``). The ``.pth`` is written last and removed first, so a half-done install or undo never
loads anything, and undoing also removes the bytecode compiled from them, leaving the environment
byte for byte as it was (docs/deepscientist-integration.md).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ds_gate.integration.wrap import BRIDGE, CONFIG_NAME, KNOWN_VERSIONS, bridge_env, read_json
from ds_gate.io.cache_file import cache_name
from ds_gate.kernel.cache_folder import trusted, user_cache_dir
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.places import pins, pins_note
from ds_gate.sources.memory import resolve_home

PTH = "ds_gate_deepscientist.pth"
MARK = "# ds-gate-managed: DeepScientist integration (ds-gate install --deepscientist; undo: --undo)"
MODULES = {
    "_ds_gate_ds_boot.py": "boot.py",
    "_ds_gate_ds_wrap.py": "wrap.py",
    "_ds_gate_ds_service.py": "service.py",
    "_ds_gate_ds_tools.py": "tools.py",
    "_ds_gate_ds_toolspec.py": "../agent/toolspec.py",  # the tools' table, read by tools.py
    "_ds_gate_ds_prompts.py": "prompts.py",  # active only with --prompts
}
SKILL = "_ds_gate_ds_distill.md"  # prompts.SKILL_FILE: the companion skill the prompt names (--prompts)
CONFIG = CONFIG_NAME  # the switches, as wrap.config() reads them
ENVS = ("runtime/python-env", "runtime/venv")  # bin/ds.js runtimePythonEnvPath, then the older layout
PROBE = (
    "import json, sys, sysconfig\nfrom importlib.metadata import version\ntry:\n v = version('deepscientist')\n"
    "except Exception:\n v = None\nprint(json.dumps({'purelib': sysconfig.get_path('purelib'), "
    "'python': sys.version.split()[0], 'deepscientist': v}))\n"
)


@dataclass(slots=True)
class Target:
    """DeepScientist's environment as its own Python describes it."""

    home: Path
    env: Path
    python: Path
    site: Path
    python_version: str
    deepscientist: str | None


@dataclass(slots=True)
class Done:
    target: Target
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def env_python(env: Path) -> Path:
    return env / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def find_target(given_home: str | None) -> Target:
    home = resolve_home(given_home)  # --home, $DEEPSCIENTIST_HOME, $DS_HOME, ~/DeepScientist (DeepScientist's order)
    for rel in ENVS:
        env = home / rel
        if os.path.isfile(env_python(env)):
            return probe(home, env)
    raise QuestError(
        f"no DeepScientist runtime Python under {home} (looked for {' and '.join(ENVS)}); "
        "start DeepScientist once (`ds`) so its launcher creates it, or pass --home DIR"
    )


def probe(home: Path, env: Path) -> Target:
    """Ask the environment's own Python (isolated: no user site, no PYTHON* variables) where
    its site-packages is and which DeepScientist it holds; it runs no code of a quest's."""
    python = env_python(env)
    try:
        done = subprocess.run(
            [str(python), "-I", "-c", PROBE], capture_output=True, text=True, timeout=120, check=False
        )
        data = json.loads(done.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        raise QuestError(
            f"{python} did not answer where its site-packages is ({exc}); is DeepScientist's runtime "
            "environment broken? Start `ds` once to repair it"
        ) from exc
    return Target(home, env, python, Path(data["purelib"]), str(data["python"]), data.get("deepscientist"))


def _write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide the files from another user running DeepScientist
    os.replace(tmp, path)


def runtime_files(settings: dict[str, Any]) -> dict[str, str]:
    """Every file the install writes into site-packages, name -> text (``doctor`` compares them)."""
    here = Path(__file__).parent
    files = {name: (here / source).read_text(encoding="utf-8") for name, source in MODULES.items()}
    if settings.get("prompts") is True:
        files[SKILL] = (here / "distill.md").read_text(encoding="utf-8")
    files[CONFIG] = json.dumps(settings, indent=2, sort_keys=True) + "\n"
    files[PTH] = f"{MARK}\nimport _ds_gate_ds_boot\n"
    return files


def read_config(site: Path) -> dict[str, Any] | None:
    return read_json(site / CONFIG)


def bridge_problem(python: str) -> str | None:
    """None when ``python`` answers the integration's requests (``call.py``), else why not."""
    try:
        done = subprocess.run(
            [python, "-c", BRIDGE],
            input='{"op": "ping"}',
            capture_output=True,
            text=True,
            timeout=120,
            env=bridge_env(),
            check=False,
        )
        return None if json.loads(done.stdout).get("ok") is True else done.stdout.strip()
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return str(exc)


def _marker(home: Path) -> Path | None:
    """Where ds-gate remembers that it installed into ``home`` (the user's cache folder, never
    the home): doctor can then tell "removed by a DeepScientist update" from "never installed"."""
    folder = user_cache_dir()
    if folder is None:
        return None
    name = cache_name("deepscientist-integration", home.resolve(), ".json")
    return Path(folder, name) if trusted(folder, name) or not os.path.lexists(folder) else None


def remembered(home: Path) -> bool:
    marker = _marker(home)
    return marker is not None and marker.is_file()


def _remember(target: Target, keep: bool) -> None:
    """Best effort, like every cache: a folder that cannot be written only costs doctor's hint."""
    marker = _marker(target.home)
    try:
        if marker is not None and keep:
            marker.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _write(marker, json.dumps({"home": str(target.home), "env": str(target.env)}) + "\n")
        elif marker is not None and marker.is_file():
            marker.unlink()
    except OSError:
        pass


def install(given_home: str | None, *, memory_global_scope: bool = False, prompts: bool = False) -> Done:
    target = find_target(given_home)
    site = target.site
    if os.path.lexists(site / PTH) and MARK not in (site / PTH).read_text(encoding="utf-8", errors="replace"):
        raise QuestError(f"{site / PTH} exists and is not ds-gate's", "remove or rename it, then run this again", "; ")
    problem = bridge_problem(sys.executable)
    if problem is not None:
        raise QuestError(
            f"{sys.executable} cannot answer the integration's calls ({problem})", "install ds-gate there", "; "
        )
    previous = read_config(site)
    pycache_existed = previous.get("pycache_existed") if previous is not None else os.path.isdir(site / "__pycache__")
    # the trusted configuration and the cache folder, pinned: DeepScientist's runners set HOME for the agent
    settings = {
        "python": sys.executable,
        "memory_global_scope": memory_global_scope,
        "prompts": prompts,
        "pycache_existed": bool(pycache_existed),
        "home": str(target.home),
        "pins": pins(),
    }
    done = Done(target)
    files = runtime_files(settings)
    for name in [*MODULES, *([SKILL] if prompts else []), CONFIG, PTH]:  # the .pth last: nothing loads early
        _write(site / name, files[name])
        done.written.append(str(site / name))
    if not prompts and os.path.lexists(site / SKILL):  # an earlier install had --prompts
        os.unlink(site / SKILL)
        done.removed.append(str(site / SKILL))
    _remember(target, True)
    done.notes.append(
        f"DeepScientist {target.deepscientist or '(not installed there)'} in {target.env} "
        f"(Python {target.python_version})"
    )
    if target.deepscientist not in KNOWN_VERSIONS:
        done.notes.append(
            f"this ds-gate knows DeepScientist {', '.join(KNOWN_VERSIONS)}: with "
            f"{target.deepscientist or 'none'} the integration wraps nothing (ds-gate doctor says so)"
        )
    done.notes.append(
        f"ds-gate's verdicts come from {sys.executable}; memory.write default scope: "
        f"{'global (switched on)' if memory_global_scope else 'quest, as main (--memory-global-scope switches it)'}"
    )
    done.notes.append(
        "prompts: on (the RFC's rules in PromptBuilder._priority_memory_block, the distill skill in its companion "
        "skill paths)"
        if prompts
        else "prompts: off (--prompts adds the RFC's rules and the distill skill to main's prompts)"
    )
    done.notes.append(pins_note("ds-gate's verdicts"))
    done.notes.append(f"undo: ds-gate install --deepscientist --undo --home {shlex.quote(str(target.home))}")
    return done


def uninstall(given_home: str | None) -> Done:
    target = find_target(given_home)
    site = target.site
    done = Done(target)
    settings = read_config(site)
    pth = site / PTH
    if os.path.lexists(pth):
        if MARK not in pth.read_text(encoding="utf-8", errors="replace"):
            raise QuestError(f"{pth} is not ds-gate's; it is left alone")
        os.unlink(pth)
        done.removed.append(str(pth))
    for name in [*MODULES, SKILL, CONFIG]:
        if os.path.lexists(site / name):
            os.unlink(site / name)
            done.removed.append(str(site / name))
    cache = site / "__pycache__"
    stems = tuple(Path(name).stem + "." for name in MODULES)
    if os.path.isdir(cache):
        for entry in sorted(os.listdir(cache)):
            if entry.startswith(stems) and entry.endswith(".pyc"):
                os.unlink(cache / entry)
                done.removed.append(str(cache / entry))
        if settings is not None and settings.get("pycache_existed") is False and not os.listdir(cache):
            os.rmdir(cache)
            done.removed.append(str(cache))
    _remember(target, False)
    if not done.removed:
        done.notes.append(f"the integration was not installed in {target.env}; nothing changed")
    return done
