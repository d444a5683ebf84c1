"""Payloads an agent might pass to DeepScientist main's ``artifact.record``, and main's acceptance.

Written from the reference (deepscientist-quest-formats.md §2, "Validation" and "Common
fields"), as ``tests/reference_reader.py`` was: it imports nothing of ds-gate's, so the
property test compares two independent readings. ``main_accepts`` is main's
``validate_artifact_payload`` for the two kinds the gate judges (run, decision): a required
field need only be truthy in Python's sense, ``action`` must be one of main's 16 exactly, and
an ``action`` that cannot be hashed makes main raise. ``written`` is the record main writes:
its defaults overlaid by the payload (``{**defaults, **payload}``).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

ACTIONS = (
    "continue",
    "launch_experiment",
    "launch_analysis_campaign",
    "branch",
    "prepare_branch",
    "activate_branch",
    "reuse_baseline",
    "attach_baseline",
    "publish_baseline",
    "waive_baseline",
    "iterate",
    "reset",
    "stop",
    "write",
    "finalize",
    "request_user_decision",
)
NOT_FINALIZING = tuple(a for a in ACTIONS if a != "finalize")  # a finalization commit is gated on runs by design


def main_accepts(payload: dict[str, Any]) -> bool:
    kind = payload.get("kind")
    if kind not in ("run", "decision"):
        return False
    if kind == "decision":
        action = payload.get("action")
        if not all(payload.get(f) for f in ("verdict", "action", "reason")):
            return False
        if isinstance(action, (list, dict)):
            return False  # unhashable: `action not in DECISION_ACTIONS` raises
        return action in ACTIONS
    return bool(payload.get("run_kind"))


def written(payload: dict[str, Any], artifact_id: str) -> dict[str, Any]:
    """The record ``_build_record`` writes: the common fields, then ``**payload`` over them."""
    kind = payload["kind"]
    defaults = {
        "kind": kind,
        "schema_version": 1,
        "artifact_id": artifact_id,
        "id": artifact_id,
        "quest_id": "001",
        "created_at": "2026-11-27T00:00:00+00:00",
        "updated_at": "2026-11-27T00:00:00+00:00",
        "source": {"kind": "agent"},
        "status": "pending" if kind == "decision" else "completed",
        "branch": "main",
        "head_commit": "0" * 40,
        "workspace_root": "/home/researcher/DeepScientist/quests/001",
        "workspace_rel_path": ".",
    }
    return {**defaults, **payload}


FLOATS = st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1e308, -5.0, 0.84])
# no lone surrogate: main fails to write one (its json.dumps then the UTF-8 encode), so it never lands
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8) | st.sampled_from(
    [" ", "\t\n", "\u00a0", "\u3000", "中文", "🔥", ""]
)
IDS = st.sampled_from(["", 123, -5, False, ["a", "b"], "nan", " run-x ", 1.5, None, "decision-1"])
SCALARS = st.none() | st.booleans() | st.integers(-10, 10) | FLOATS | TEXT
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=6
)


@st.composite
def accepted_payloads(draw: Any) -> dict[str, Any]:
    """A run or decision payload main's acceptance lets through, with odd types everywhere it allows them."""
    kind = draw(st.sampled_from(["run", "decision"]))
    payload: dict[str, Any] = {"kind": kind}
    if kind == "decision":
        payload["action"] = draw(st.sampled_from(NOT_FINALIZING))
        payload["verdict"] = draw(VALUES)
        payload["reason"] = draw(VALUES)
    else:
        payload["run_kind"] = draw(VALUES | st.sampled_from(["main_experiment", "analysis.slice", " ", "Main"]))
        payload["metrics_summary"] = {"acc": draw(FLOATS), "loss": draw(VALUES)}
    for field in ("status", "run_id", "summary", "details"):
        if draw(st.booleans()):
            payload[field] = draw(VALUES)
    if draw(st.booleans()):
        payload["artifact_id"] = draw(IDS)
    return payload if main_accepts(payload) else draw(st.nothing())
