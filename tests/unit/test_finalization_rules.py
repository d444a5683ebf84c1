"""``rules.finalization``: a finalization is recognised by what the file means, as DeepScientist
would read it (PyYAML's ``safe_load``, ``json.loads``), stripped and casefolded; never by bytes."""

from __future__ import annotations

import pytest
import yaml

from ds_gate.kernel.finalizing import decision_reason, may_say_completed
from ds_gate.rules.finalization import quest_status

COMPLETED = [
    b"status: completed\n",
    b"status: ' Completed '\n",
    b'status: "\\x63ompleted"\n',
    b'status: "\\u0043OMPLETED"\n',
    b'status: "\\U00000063ompleted"\n',
    b'status: "comp\\\n  leted"\n',
    b"status: !!str completed\n",
    b"{quest_id: '001', status: completed}\n",
    b"word: &w completed\nstatus: *w\n",
    b"base: &b {status: completed}\n<<: *b\n",
    b"\xef\xbb\xbfstatus: completed\n",
]
NOT_COMPLETED = [
    b"status: active\n",
    b"status: completed_by_user\n",
    b"title: completed\nstatus: active\n",
    b"status: [completed]\n",
    b'status: "comp"\n',
]


@pytest.mark.parametrize("raw", COMPLETED)
def test_a_completion_is_read_by_its_meaning(raw: bytes) -> None:
    meaning = yaml.safe_load(raw.decode("utf-8-sig"))
    assert str(meaning["status"]).strip().lower() == "completed"  # what PyYAML makes of it
    assert may_say_completed(raw) and quest_status(raw) == "completed"


@pytest.mark.parametrize("raw", NOT_COMPLETED)
def test_what_is_not_a_completion(raw: bytes) -> None:
    assert quest_status(raw) != "completed"


@pytest.mark.parametrize(
    "raw",
    [b'status: "\\x63ompleted"\nbroken: [\n', b"status: COMPLETED # done\n: : [\n", b"'status': ' completed '\nx: {\n"],
)
def test_a_broken_file_is_read_by_its_status_line_parsed_alone(raw: bytes) -> None:
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(raw)
    assert quest_status(raw) == "completed"


@pytest.mark.parametrize(
    ("data", "finalizes"),
    [
        (b'{"action": "\\u0066inalize"}', True),
        (b'{"action": " FINALIZE "}', True),
        (b'{"action": "stop", "decision_scope": " Quest_Completion\\n"}', True),
        (b'{"kind": "run", "action": "finalize"}', True),  # in decisions/: main names it by its folder
        (b'{"action": "write"}', False),
        (b'{"action": "stop", "decision_scope": "quest"}', False),
        (b'{"action": ["finalize"]}', False),
    ],
)
def test_a_finalizing_decision_is_read_as_json_means_it(data: bytes, finalizes: bool) -> None:
    assert (decision_reason(data) is not None) == finalizes
