"""The wrapping itself, in DeepScientist's process: its finalization tools ask ds-gate first.

Copied beside ``boot.py`` as ``_ds_gate_ds_wrap.py``; standard library only. Like an OpenTelemetry
instrumentor it checks before it touches anything: a DeepScientist version ds-gate knows, and each
wrapped function with exactly ``main``'s parameters; else nothing is wrapped (what was, is put
back), with one line on stderr and the reason in ``status()`` (``ds-gate doctor`` shows it).
``service.py`` wraps ``ArtifactService``, ``tools.py`` main's two MCP servers, ``prompts.py`` (with
``--prompts`` only) main's ``PromptBuilder``; this module holds
what both share: the checks, the state, and the asking. Verdicts come from ds-gate's own
interpreter (``ds_gate.integration.call``, one process per call, JSON in and out), since ds-gate is
not installed in DeepScientist's environment (docs/deepscientist-integration.md says why). Any
error on the way is a refusal naming it (fail closed); nothing here raises or writes.
"""

import contextlib
import inspect
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

KNOWN_VERSIONS = ("1.6.0",)  # DeepScientist main (b366244) and its release
SERVICE, SERVER = "deepscientist.artifact.service", "deepscientist.mcp.server"
BUILDER = "deepscientist.prompts.builder"  # only with --prompts (prompts.py)
STATUS_ERROR = "ds_gate_error"
CONFIG_NAME = "_ds_gate_ds.json"
TIMEOUT = 600.0  # seconds: a closure over a very large quest, never a hung tool
PREFIX = "ds-gate (DeepScientist integration): "
BRIDGE = (
    "import sys; sys.path[:] = [p for p in sys.path if p]; "
    "from ds_gate.integration.call import main; raise SystemExit(main())"
)
UNINSTALL = "ds-gate install --deepscientist --undo"

Judge = Callable[[dict[str, Any]], dict[str, Any]]
_STATE: dict[str, Any] = {"state": "idle", "reason": None, "wrapped": [], "problems": []}
PROMPTS: dict[str, Any] = {"state": "not loaded", "reason": None, "wrapped": []}  # prompts.py's own state
_ORIGINALS: list[tuple[Any, str, Any]] = []  # (owner, attribute, original): what refuse() puts back
_JUDGE: list[Judge] = []  # set_judge(): ds-gate's demo answers in process


def say(text: str) -> None:
    try:
        sys.stderr.write(PREFIX + text + "\n")
        sys.stderr.flush()
    except Exception:
        pass


def status() -> dict[str, Any]:
    prompts = {**PROMPTS, "wrapped": list(PROMPTS["wrapped"])} if config().get("prompts") is True else {"state": "off"}
    return {
        **_STATE,
        "wrapped": list(_STATE["wrapped"]),
        "problems": list(_STATE["problems"]),
        "known_versions": list(KNOWN_VERSIONS),
        "prompts": prompts,
    }


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def config() -> dict[str, Any]:
    """What ``ds-gate install --deepscientist`` wrote beside this file (ds-gate's interpreter, switches)."""
    return read_json(Path(__file__).with_name(CONFIG_NAME)) or {}


def bridge_env() -> dict[str, str]:
    """The environment ds-gate's interpreter runs in: DeepScientist's, without what would change its Python."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}


def set_judge(judge: Judge | None) -> None:
    _JUDGE[:] = [judge] if judge is not None else []


def judge(request: dict[str, Any], timeout: float = TIMEOUT) -> dict[str, Any]:
    """ds-gate's answer to ``request``, from its own interpreter; raises on anything else."""
    if _JUDGE:
        return _JUDGE[0](request)
    python = config().get("python")
    if not isinstance(python, str) or not os.path.isfile(python):
        raise RuntimeError(
            f"ds-gate's interpreter {python!r} is gone (ds-gate was moved or uninstalled); "
            f"run `ds-gate install --deepscientist` again, or `{UNINSTALL}`"
        )
    env = bridge_env()
    pins = config().get("pins")  # the trusted places pinned at install: the runner's HOME does not move them
    if isinstance(pins, dict):
        env.update({k: v for k, v in pins.items() if str(k).startswith("DS_GATE_PINNED_") and isinstance(v, str)})
    done = subprocess.run(
        [python, "-c", BRIDGE],
        input=json.dumps(request, default=str).encode(),
        capture_output=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"ds-gate ({python}) gave no answer (exit {done.returncode}): {last}") from None
    if not isinstance(answer, dict) or "error" in answer:
        raise RuntimeError(str(answer.get("error") if isinstance(answer, dict) else answer))
    return answer


def error_refusal(tool: str, exc: BaseException) -> dict[str, Any]:
    """Fail closed: the agent is told what failed and what fixes it; nothing was done."""
    text = f"{type(exc).__name__}: {exc}" if not isinstance(exc, RuntimeError) else str(exc)
    message = (
        f"ds-gate could not check artifact.{tool}, so it was refused and nothing was recorded: {text}. "
        f"Run `ds-gate doctor` (the integration's line says what to fix), or remove the integration: {UNINSTALL}"
    )
    return {
        "ok": False,
        "status": STATUS_ERROR,
        "gate": "ds-gate",
        "message": message,
        "errors": [message],
        "warnings": [],
    }


def about(owner: Any, quest_root: Any, request: dict[str, Any]) -> dict[str, Any]:
    """``request`` about the quest at ``quest_root``, with the home of ``owner`` (main's service or a server's context)."""
    home = getattr(owner, "home", None)
    return {**request, "root": str(quest_root), "home": str(home) if home is not None else None}


def ask(owner: Any, quest_root: Any, request: dict[str, Any]) -> dict[str, Any] | None:
    """None to let ``main`` run, else the refusal to return instead."""
    try:
        answer = judge(about(owner, quest_root, request))
        if answer.get("allow") is True:
            return None
        refusal = answer.get("refusal")
        if not isinstance(refusal, dict):
            raise RuntimeError("ds-gate answered neither allow nor a refusal")
        return {"status": STATUS_ERROR, "message": "ds-gate refused this call", **refusal, "ok": False}
    except Exception as exc:
        return error_refusal(str(request.get("tool")), exc)


class _Asked(threading.local):
    """The quest a tool-level guard (``tools.guard_tool``) has just asked about in this thread,
    so the service wrapper beneath it does not start ds-gate a second time for the same call."""

    root: str | None = None


ASKED = _Asked()


@contextlib.contextmanager
def tool_asked(quest_root: Any) -> Iterator[None]:
    ASKED.root = str(quest_root)
    try:
        yield
    finally:
        ASKED.root = None


def shape(function: Any) -> str | None:
    """``function``'s parameters as a ``def`` spells them, defaults and annotations aside
    (``self, root, /, *args, *, key, **rest``), or None when it has no signature."""
    try:
        params = list(inspect.signature(function, follow_wrapped=False).parameters.values())
    except (TypeError, ValueError):
        return None
    parts: list[str] = []
    for i, p in enumerate(params):
        if p.kind is p.KEYWORD_ONLY and not any(q.kind in (q.KEYWORD_ONLY, q.VAR_POSITIONAL) for q in params[:i]):
            parts.append("*")
        parts.append(("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else "") + p.name)
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind is not p.POSITIONAL_ONLY):
            parts.append("/")
    return ", ".join(parts)


def _names(spelt: str) -> str:
    return ", ".join(part.lstrip("*") for part in spelt.split(", ") if part not in ("*", "/", ""))


def shape_problems(owner: Any, expected: dict[str, str], where: str) -> list[str]:
    problems = []
    for name, params in expected.items():
        found = getattr(owner, name, None) if owner is not None else None
        if not callable(found):
            problems.append(f"{where}.{name} is missing")
        elif shape(found) != params:
            problems.append(
                f"{where}.{name} has parameters ({_names(shape(found) or '')}), not main's ({_names(params)})"
            )
    return problems


def version_problem() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("deepscientist")
    except PackageNotFoundError:
        return "no installed distribution named deepscientist, so its version cannot be checked"
    _STATE["deepscientist"] = found
    if found not in KNOWN_VERSIONS:
        return f"DeepScientist {found} is not a version this ds-gate knows ({', '.join(KNOWN_VERSIONS)})"
    return None


def _sibling(name: str) -> Any:
    """``service.py`` or ``tools.py`` beside this module, under the name it has here (``_ds_gate_ds_tools`` or
    ``ds_gate.integration.tools``)."""
    import importlib

    return importlib.import_module(__name__[: -len("wrap")] + name)


def remember(owner: Any, name: str, original: Any, label: str) -> None:
    """One wrapped attribute: ``refuse`` puts it back."""
    _ORIGINALS.append((owner, name, original))
    _STATE["wrapped"].append(label)


def add_problems(found: list[str]) -> None:
    _STATE["problems"].extend(found)


def refuse(reason: str) -> None:
    """Put back whatever this process wrapped, remember why, and say it once."""
    for owner, name, original in reversed(_ORIGINALS):
        setattr(owner, name, original)
    _ORIGINALS.clear()
    _STATE.update(state="refused", reason=reason, wrapped=[])
    say(f"DeepScientist not recognised, nothing is wrapped: {reason}; run ds-gate doctor")


def patch(name: str, module: ModuleType) -> None:
    """Called by the boot loader once ``name`` has run; the prompt builder only with ``--prompts``,
    and apart from the tool wraps (either may be refused alone)."""
    if name == BUILDER:
        if config().get("prompts") is True:
            try:
                _sibling("prompts").patch(module)
            except Exception as exc:  # prompts.py could not load: nothing of it was wrapped
                PROMPTS.update(state="refused", reason=f"{type(exc).__name__}: {exc}", wrapped=[])
                say(f"prompts add nothing: {PROMPTS['reason']}; run ds-gate doctor")
        return
    if _STATE["state"] == "refused":
        return
    try:
        problem = version_problem()
        if problem:
            problems = [problem]
        elif name == SERVICE:
            problems = _sibling("service").wrap_service_class(getattr(module, "ArtifactService", None))
        else:
            problems = _sibling("tools").wrap_server_module(module)
    except Exception as exc:
        problems = [f"{type(exc).__name__}: {exc}"]
    if problems:
        refuse("; ".join(problems))
    else:
        _STATE["state"] = "wrapped"
