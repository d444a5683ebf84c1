"""Issue 37.2: recall follows the home's ``memory.read_visibility_mode`` as DeepScientist main does.

On an ``independent`` home (every default one) quest A never sees quest B's cards, on every
surface in this process: the API (``recall``, ``list_knowledge_summaries``), the CLI (``recall``),
the agent's tool (``agent.tools.call``, what ``ds-gate mcp`` serves) and the integration's answer
(``integration.call.answer``, what main's memory server asks). The server processes themselves:
``test_recall_visibility_servers.py``. Real git quests, a real home, real files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from visibility_home import HIDDEN, SHARED, TAG, assert_hidden, configure, ids, plant

from ds_gate.agent.tools import call
from ds_gate.cli.main import main
from ds_gate.integration.call import answer
from ds_gate.kernel.errors import QuestError
from ds_gate.recall.api import list_knowledge_summaries, recall
from ds_gate.sources.visibility import INDEPENDENT, MODES, read_visibility
from ds_gate.sources.visibility import SHARED as SHARED_MODE

pytestmark = pytest.mark.usefixtures("fresh_recall_indexes")


@pytest.fixture
def quests(home: Path, tmp_path: Path) -> dict[str, Path]:
    return plant(home, tmp_path / "outside")


def every_surface(home: Path, quest: Path, capsys: pytest.CaptureFixture[str], **asked: Any) -> dict[str, Any]:
    """What each in-process surface answers quest ``quest`` for the tag (and ``asked``)."""
    query = asked.get("query")
    cli = ["recall", "--tags", TAG, "--quest", str(quest), "--home", str(home), "--format", "json"]
    capsys.readouterr()
    assert main(cli + (["--query", query] if query else [])) == 0
    printed = json.loads(capsys.readouterr().out)
    tool_args = {"domain_tags": [TAG], **asked}
    bridged = answer(
        {"op": "tool", "root": str(quest), "home": str(home), "tool": "list_knowledge_summaries", "args": tool_args}
    )
    return {
        "api recall": recall([TAG], home=home, quest=quest, **asked),
        "api list": list_knowledge_summaries([TAG], home=home, quest=quest, **asked),
        "cli": printed,
        "agent tool": call("list_knowledge_summaries", quest, tool_args, str(home)),
        "integration": bridged["result"],
    }


def rows(result: Any) -> list[dict[str, Any]]:
    return result if isinstance(result, list) else list(result["results"])


def seen(result: Any) -> dict[str, Any] | None:
    if isinstance(result, list):
        return None  # the API's list has no place for it (recall() carries it)
    return dict(result["recall"]["visibility"] if "recall" in result else result["visibility"])


@pytest.mark.parametrize("case", sorted(HIDDEN))
def test_an_independent_home_never_shows_another_quests_card_on_any_surface(home, quests, capsys, case) -> None:
    configure(home, HIDDEN[case])
    for surface, result in every_surface(home, quests["A"], capsys).items():
        assert ids(rows(result)) == {"k-a", "k-global"}, (case, surface)
        assert_hidden(result, f"{case}: {surface}")
        mode = seen(result)
        if mode is not None:
            assert mode["mode"] == INDEPENDENT and mode["quirks"] == [], (case, surface)
            assert mode["origin"] == {
                "no config file": "default",
                "independent": "config",
                "garbage value": "config",
            }.get(case, "fallback")
            assert mode["config"] == str(home / "config" / "config.yaml")
            notes = " ".join(result["notes"])
            if case in (
                "unparseable YAML",
                "not UTF-8",
            ):  # main would raise: ds-gate reads the narrower view, and says so
                assert "config.yaml" in notes and "read as independent" in notes, notes
            if case == "garbage value":
                assert "'sharedacrossquests', not one of independent, shared_across_quests" in notes


@pytest.mark.parametrize("case", sorted(SHARED))
def test_shared_across_quests_shows_initialized_siblings_as_main_names_them(home, quests, capsys, case) -> None:
    configure(home, SHARED[case])
    for surface, result in every_surface(home, quests["A"], capsys).items():
        found = {r["card_id"]: r for r in rows(result)}
        assert set(found) == {"k-a", "k-b", "k-global"}, (case, surface)  # C has no quest.yaml; D is a link
        b = found["k-b"]
        assert b["scope"] == "shared_quest" and b["document_id"] == "sharedmemory::B::knowledge/b-private-routing.md"
        assert Path(b["path"]) == quests["B"] / "memory" / "knowledge" / "b-private-routing.md"
        assert found["k-a"]["scope"] == "quest" and "document_id" not in found["k-a"]
        mode = seen(result)
        if mode is not None:
            assert mode == {
                "mode": SHARED_MODE,
                "origin": "config",
                "config": str(home / "config" / "config.yaml"),
                "quirks": [str(home / "framework_quirks.md"), str(home / "system_quirks.md")],
            }
            assert any("quests/D is a symbolic link" in note for note in result["notes"]), result["notes"]


def test_a_quirks_entry_is_recalled_by_its_words_and_the_preamble_never(home, quests, capsys) -> None:
    configure(home, SHARED["shared_across_quests"])
    for surface, result in every_surface(home, quests["A"], capsys, query="validator relative path").items():
        quirk = rows(result)[0]
        assert quirk["scope"] == "home_quirks" and quirk["kind"] == "quirks", surface
        assert quirk["title"] == "validator rejects relative artifact paths"
        assert quirk["card_id"].startswith("quirk-framework-") and quirk["path"] == f"{home / 'framework_quirks.md'}:9"
        assert "a relative path is refused" in quirk["summary"]
        text = json.dumps(result)
        for line in ("Append-only durable", "Each entry should", "Prefer fixing code", "Framework Quirks"):
            assert line not in text, (surface, line)  # main's preamble is never an entry
    only_preamble = recall(["unused:tag"], home=home, quest=quests["A"], query="durable append-only confirmed")
    assert [r for r in only_preamble["results"] if r["scope"] == "home_quirks"] == []
    tight = recall([], home=home, quest=quests["A"], query="validator", max_chars=30)
    assert sum(len(r["summary"]) for r in tight["results"]) <= 30 and tight["results"][0]["kind"] == "quirks"
    kind = recall([], home=home, quest=quests["A"], kind="quirk")  # the kind, as --kind takes it
    assert [r["kind"] for r in kind["results"]] == ["quirks"]


def test_no_quest_on_an_independent_home_is_the_global_memory_with_a_note(home, quests) -> None:
    found = recall([TAG], home=home)
    assert ids(found["results"]) == {"k-global"}
    assert any("no quest given" in note for note in found["notes"])
    quirks = recall([], home=home, quest=quests["A"], kind="quirks")  # asked for, on a home that does not share them
    assert quirks["results"] == [] and any("quirks files are recalled only where" in n for n in quirks["notes"])
    configure(home, SHARED["shared_across_quests"])
    assert ids(recall([TAG], home=home)["results"]) == {"k-a", "k-b", "k-global"}


def test_the_human_flag_widens_and_no_agent_route_takes_it(home, quests, gate_json) -> None:
    code, out = gate_json("recall", "--tags", TAG, "--quest", str(quests["A"]), "--visibility", "all")
    assert code == 0 and ids(out["results"]) == {"k-a", "k-b", "k-c", "k-global"}  # D stays a link not followed
    assert out["recall"]["visibility"]["origin"] == "caller"
    assert any("visibility all" in note for note in out["notes"])
    code, out = gate_json("recall", "--tags", TAG, "--quest", str(quests["A"]), "--visibility", "shared_across_quests")
    assert ids(out["results"]) == {"k-a", "k-b", "k-global"}
    for widen in ({"visibility": "all"}, {"visibility": "shared_across_quests"}, {"scope": "visible"}):
        with pytest.raises(QuestError, match="takes no argument"):
            call("list_knowledge_summaries", quests["A"], {"domain_tags": [TAG], **widen}, str(home))
        refused = answer(
            {
                "op": "tool",
                "root": str(quests["A"]),
                "home": str(home),
                "tool": "list_knowledge_summaries",
                "args": widen,
            }
        )
        assert "error" in refused and "k-b" not in json.dumps(refused)
    with pytest.raises(QuestError, match="visibility must be one of follow"):
        recall([TAG], home=home, quest=quests["A"], visibility="everything")


def test_a_config_or_folder_linked_out_of_the_home_is_not_followed(home, quests, tmp_path) -> None:
    elsewhere = tmp_path / "elsewhere.yaml"
    elsewhere.write_text(SHARED["shared_across_quests"])
    (home / "config").mkdir()
    (home / "config" / "config.yaml").symlink_to(elsewhere)
    found = recall([TAG], home=home, quest=quests["A"])
    assert ids(found["results"]) == {"k-a", "k-global"} and found["visibility"]["origin"] == "fallback"
    assert any("symbolic link out of the home" in note for note in found["notes"])
    (home / "config" / "config.yaml").unlink()
    (home / "config").rmdir()
    (home / "config").symlink_to(tmp_path, target_is_directory=True)  # the folder itself leads out
    (tmp_path / "config.yaml").write_text(SHARED["shared_across_quests"])
    assert ids(recall([TAG], home=home, quest=quests["A"])["results"]) == {"k-a", "k-global"}
    inside = home / "shared.yaml"  # a link that stays inside the home is the home's own file
    inside.write_text(SHARED["shared_across_quests"])
    (home / "config").unlink()
    (home / "config").mkdir()
    (home / "config" / "config.yaml").symlink_to(inside)
    assert recall([TAG], home=home, quest=quests["A"])["visibility"]["mode"] == SHARED_MODE
    os.unlink(home / "framework_quirks.md")
    (home / "framework_quirks.md").symlink_to(tmp_path / "elsewhere.yaml")
    found = recall([TAG], home=home, quest=quests["A"])
    assert found["visibility"]["quirks"] == [str(home / "system_quirks.md")]


def main_mode(raw: bytes) -> str | None:
    """DeepScientist main's mode for this config.yaml (shared.py read_yaml, config/service.py
    _normalize_config_payload, memory/service.py): None where main raises."""
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
        data = {} if data is None or not isinstance(data, dict) else data
        memory = data.get("memory") if isinstance(data.get("memory"), dict) else {}
        value = str(memory.get("read_visibility_mode", "independent") or "independent").strip().lower()
    except Exception:
        return None
    return value if value in MODES else INDEPENDENT


VALUES = st.one_of(
    st.sampled_from(["shared_across_quests", " Shared_Across_Quests ", "SHARED_ACROSS_QUESTS\t", "independent"]),
    st.sampled_from(["shared-across-quests", "shared_across_quests\x00", "sharedacrossquests", "", "all"]),
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=30),
    st.lists(st.text(max_size=10), max_size=3),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
)
DOCUMENTS = st.one_of(
    VALUES.map(lambda v: {"memory": {"read_visibility_mode": v}}),
    VALUES.map(lambda v: {"memory": v}),
    VALUES,
)
RAW = st.sampled_from(
    [
        b"memory: {read_visibility_mode: !!python/object:os.system shared_across_quests}\n",
        b"memory: &a {read_visibility_mode: shared_across_quests}\nother: *a\n",
        b"memory:\n  read_visibility_mode: " + b"1" * 5000 + b"\n",
        b"memory:\n  read_visibility_mode: shared_across_quests\n  read_visibility_mode: independent\n",
        b"\xef\xbb\xbfmemory:\n  read_visibility_mode: shared_across_quests\n",
        b"[" * 2000,
        b".\t",  # main's loader raises, libyaml reads a scalar
        b"---\nmemory: {read_visibility_mode: shared_across_quests}\n---\nmemory: {}\n",
    ]
)
CONTENT = st.one_of(
    DOCUMENTS.map(lambda d: yaml.safe_dump(d, allow_unicode=True).encode("utf-8", "surrogatepass")),
    RAW,
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=CONTENT)
def test_any_config_content_reads_as_main_reads_it_or_narrower(tmp_path_factory, raw: bytes) -> None:
    """Whatever the home's config.yaml holds: a mode, never an exception; main's mode where main
    reads the file; ``independent`` (with a note) where it would raise. Never wider than main."""
    home = tmp_path_factory.mktemp("home")
    (home / "config").mkdir()
    (home / "config" / "config.yaml").write_bytes(raw)
    got = read_visibility(home)
    expected = main_mode(raw)
    assert got.mode in MODES
    if (
        expected is None or got.origin == "fallback"
    ):  # libyaml (ds-gate) reads a few texts main's pure-Python loader refuses, b".\t" one
        assert got.mode == INDEPENDENT and got.note
    else:
        assert got.mode == expected
