"""ds-gate's side of the DeepScientist integration: one request in (JSON on stdin), one answer out.

``wrap.judge`` runs ``<ds-gate's python> -c ... call.main()`` for each wrapped call that needs a
verdict, so the verdict comes from ds-gate's own code, dependencies and Python, as ``closure`` and
the MCP tools make it. Read-only; the answer is always JSON: ``{"allow": true}``, ``{"allow": false,
"refusal": {...}}``, ``{"result": {...}}`` for a tool, ``{"lines": [...]}`` for a prompt, or ``{"error": "..."}``, which the caller
turns into a refusal (fail closed).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ds_gate.agent.prompt_rules import prompt_lines
from ds_gate.agent.tools import call, check_closure
from ds_gate.integration.review import judge_review, refusal, refusal_for_review
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.git import GitError
from ds_gate.kernel.jsonout import dumps
from ds_gate.kernel.version import __version__
from ds_gate.model.findings import ERROR

MAX_REQUEST = 16 * 1024 * 1024  # bytes: a review payload, never a file
STATUS_PENDING = "distill_review_required"
STATUS_CLOSURE = "distill_closure_failed"
SHOWN = 10  # findings quoted in a refusal's message; all of them are in `findings`


def finalization(root: str, tool: str, home: str | None) -> dict[str, Any]:
    """Allow unless ds-gate's closure gate is enforced and fails; then the refusal names the
    pending runs and the exact call that covers them (the closure's own ``next_call``)."""
    verdict = check_closure(root, home=home)
    if not verdict["enforced"] or verdict["ok"]:
        return {"allow": True, "verdict": verdict["verdict"]}
    pending: list[str] = verdict["pending_run_ids"]
    errors = [f for f in verdict["findings"] if f.get("severity") == ERROR]
    action = f"artifact.{tool}" if tool != "interact" else "asking the user to approve completion"
    baselined = verdict["baselined_count"]
    aside = (
        f" ({baselined} earlier completed run(s) are baselined by the user's trusted configuration and need no review)"
        if baselined
        else ""
    )
    if verdict["pending_count"]:
        status = STATUS_PENDING
        message = (
            f"ds-gate refused {action} before anything was recorded: {verdict['pending_count']} completed run(s) "
            f"are not covered by a valid distill review: {', '.join(pending)}{aside}. Distill them, check the review with "
            "artifact.validate_distill_review(payload=...), record it with this call (also in next_call):\n"
            + "\n".join(verdict["next_call"])
            + f"\nthen call {'artifact.' + tool if tool != 'interact' else 'artifact.interact'} again."
        )
    else:
        status = STATUS_CLOSURE
        shown = "; ".join(
            f"{f.get('message')} (fix: {f.get('hint')})" if f.get("hint") else str(f.get("message"))
            for f in errors[:SHOWN]
        )
        message = (
            f"ds-gate refused {action} before anything was recorded: the closure gate fails: {shown}. "
            "Fix these, then try again."
        )
    return {
        "allow": False,
        "refusal": refusal(
            status,
            message,
            [message],
            pending_run_ids=pending,
            pending_count=verdict["pending_count"],
            baselined_count=baselined,
            next_call="\n".join(verdict["next_call"]) if verdict["next_call"] else None,
            findings=errors,
            encoding=verdict["encoding"],
        ),
    }


def review(root: str, payload: Any) -> dict[str, Any]:
    if not isinstance(payload, dict):
        raise QuestError(f"payload must be a JSON object, not {type(payload).__name__}")
    judged = judge_review(root, payload)
    if judged["accepted"]:
        return {"allow": True}
    return {"allow": False, "refusal": refusal_for_review(judged)}


def answer(request: Any) -> dict[str, Any]:
    """The answer to one request; bad input or an unreadable quest is ``{"error": ...}``."""
    if not isinstance(request, dict):
        return {"error": "the request is not a JSON object"}
    op = request.get("op")
    if op == "ping":
        return {"ok": True, "ds_gate": __version__, "python": sys.executable}
    root, home = request.get("root"), request.get("home")
    if not isinstance(root, str) or not root:
        return {"error": "the request names no quest root"}
    if not Path(root).is_dir():
        return {"error": f"{root} is not a folder: the quest root DeepScientist passed does not exist"}
    home = home if isinstance(home, str) and home else None
    try:
        if op == "finalization":
            return finalization(root, str(request.get("tool")), home)
        if op == "review":
            return review(root, request.get("payload"))
        if op == "prompt":  # a stage turn's rules (install --prompts)
            anchor = request.get("active_anchor")
            lines = prompt_lines(
                root, home, anchor if isinstance(anchor, str) else None, request.get("global_default") is True
            )
            return {"lines": lines}
        if op == "tool":
            args = request.get("args")
            return {"result": call(str(request.get("tool")), root, args if isinstance(args, dict) else {}, home)}
    except (QuestError, GitError) as exc:  # the CLI's own message: the quest cannot be read, and why
        return {"error": str(exc)}
    return {"error": f"unknown request {shown(op)}"}


def main() -> int:
    """Always JSON on stdout, exit 0; an unexpected error is an answer too (the caller refuses)."""
    try:
        raw = sys.stdin.buffer.read(MAX_REQUEST + 1)
        if len(raw) > MAX_REQUEST:
            out: dict[str, Any] = {"error": f"the request is over {MAX_REQUEST} bytes"}
        else:
            out = answer(json.loads(raw))
    except Exception as exc:  # the caller turns any error into a refusal naming it
        out = {"error": f"ds-gate internal error: {type(exc).__name__}: {exc}"}
    sys.stdout.write(dumps(out, default=str))  # ASCII: lone surrogates cannot break it; strict: no bare NaN
    sys.stdout.flush()
    return 0
