"""Whether a record has no finding at all, answered without building one.

The commit hook runs on every checkpoint, and most checkpoints that stage anything stage a
new run or decision record that is fine. Building the answer "no finding" through the
full rules costs the findings' and the model's dataclasses (~8 ms of imports) before the
first check. So this asks the same questions the full rules ask, through the very
functions they guard themselves with (``sources.record_json.parse_json_object``,
``rules.words``, ``io.schemas.accepts``, ``sources.paths.record_kind``), and answers only
"certainly no finding" (True) or "ask the full rules" (False). Nothing here words a
finding: a record that has one, or might, is the full path's, which reports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.io.schemas import accepts
from ds_gate.kernel.layout import GATE_KINDS, record_kind
from ds_gate.kernel.words import DECISION_ACTIONS, unknown_action, unknown_kind
from ds_gate.sources.record_json import parse_json_object

if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Any

# model.records.REVIEW_ACTION (and REVIEW_REPORT_TYPE), spelt here because importing the
# model costs its dataclasses; tests/acceptance/test_checkpoint_fast_path.py holds them equal.
REVIEW_ACTION = "distill_review"


def record_has_no_findings(kind: str | None, data: dict[str, Any], actions: Collection[str] = DECISION_ACTIONS) -> bool:
    """True only when ``rules.records.check_record`` finds nothing in this record, by kind as
    it dispatches. A review answers False: its rules are more than a schema, and
    ``check_documents`` judges it against the quest's runs. A rule added to ``check_record``
    must make this answer False wherever it could find something
    (``tests/acceptance/test_checkpoint_fast_path.py`` holds the two together)."""
    if kind == "run":
        return accepts("run", data)  # check_run: the schema alone
    if kind == "decision":
        action = data.get("action")
        return action != REVIEW_ACTION and not unknown_action(action, actions) and accepts("decision", data)
    if kind == "report":
        return data.get("report_type") != REVIEW_ACTION  # main asks nothing of a report that is no review
    return True  # no built-in rule looks at other kinds


def staged_record_is_clean(raw: bytes, folder: str) -> bool:
    """True only when ``engine.documents.check_documents`` gives this record file (its bytes,
    in ``artifacts/<folder>/``) no finding and needs no other file to say so, with the
    built-in rules and DeepScientist main's decision actions (no plugin, no ``.ds-gate.yaml``):
    the same steps in the same order (parse, kind, skip what the gate does not read, the
    record's rules)."""
    data, problem = parse_json_object(raw, "")
    if data is None or problem is not None:
        return False
    if unknown_kind(data.get("kind")):
        return False
    kind = record_kind(data, folder)
    if kind not in GATE_KINDS:
        return True  # check_documents skips it: the gate does not read it
    return record_has_no_findings(kind, data)
