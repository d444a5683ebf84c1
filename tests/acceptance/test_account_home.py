"""Issue 35, break 13: a DeepScientist home that is the account's own home folder.

With ``DEEPSCIENTIST_HOME`` unset and ``~/quests``, ``~/memory`` (DeepScientist's layout in
``~``), a quest's agent can write anywhere in ``~``, ``~/.config/ds-gate/config.yaml`` included.
``kernel.places.agent_writable`` stops its walk at the account's home (a user's own ``~/memory`` must
not make all of ``~`` a home), so that file was trusted: ``require: false`` turned closure off.
The account's home comes from the password database, which a test cannot change without root;
the rule is tested with the account's home given, and end to end with ``places.account_home``
answering the test's folder (the only thing replaced: files, git and the CLI are real)."""

from __future__ import annotations

from pathlib import Path

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel import places
from ds_gate.kernel.places import agent_writable


def _config(account: Path) -> Path:
    return account / ".config" / "ds-gate" / "config.yaml"


def test_the_account_home_is_a_home_when_it_holds_quests_and_memory(tmp_path, monkeypatch) -> None:
    """``~/memory`` alone or ``~/quests`` alone: the user's own folders, ``~`` is not a home;
    both (DeepScientist's ``ensure_home_layout``), or ``$DEEPSCIENTIST_HOME``/``$DS_HOME`` naming ``~``: it is."""
    for name in places.HOME_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    account = tmp_path / "account"
    (account / "memory").mkdir(parents=True)
    assert agent_writable(_config(account), account=str(account)) is None
    (account / "memory").rmdir()
    (account / "quests").mkdir()
    assert agent_writable(_config(account), account=str(account)) is None
    (account / "memory").mkdir()
    where = agent_writable(_config(account), account=str(account))  # old: None, the file was trusted
    assert where is not None and "account's home" in where and str(account) in where
    (account / "link").symlink_to(account / ".config")  # spelled through a link, resolved into ~
    assert agent_writable(account / "link" / "ds-gate" / "config.yaml", account=str(account)) is not None
    assert agent_writable(tmp_path / "elsewhere" / "config.yaml", account=str(account)) is None  # outside ~
    (account / "quests").rmdir()
    for name in places.HOME_VARIABLES:
        monkeypatch.setenv(name, str(account))
        assert f"${name}" in (agent_writable(_config(account), account=str(account)) or "")
        monkeypatch.delenv(name)


def test_a_config_the_agent_writes_in_an_account_home_that_is_the_home_stops_closure(
    tmp_path, monkeypatch, capsys
) -> None:
    """Break 13 end to end: quest ``~/quests/001`` with a completed run not reviewed, the agent
    writes ``~/.config/ds-gate/config.yaml`` (``require: false``, ``no_require: [the quest]``):
    closure stops (exit 2) naming the file, the place and the fix; it passed (exit 0) before."""
    account = tmp_path / "account"
    for name in (*places.HOME_VARIABLES, "XDG_CONFIG_HOME", "DS_GATE_CONFIG", places.PIN_CONFIG, places.PIN_CACHE):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(account))
    monkeypatch.setattr(places, "account_home", lambda: str(account))
    (account / "memory").mkdir(parents=True)
    quest = ExampleQuest(account / "quests" / "001", "001").create()
    quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    assert main(["closure", str(quest.root)]) == 1  # pending review
    capsys.readouterr()
    config = _config(account)
    config.parent.mkdir(parents=True)
    config.write_text(f"require: false\nno_require: [{quest.root}]\n")
    assert main(["closure", str(quest.root)]) == 2  # old: 0
    err = capsys.readouterr().err
    assert str(config) in err and "account's home" in err and "Traceback" not in err
    assert "--config" in err and "ds-gate install" in err  # the fix: keep it outside, name it, pin it
    monkeypatch.setenv("DS_GATE_CONFIG", str(tmp_path / "mine.yaml"))  # the user's own file outside ~
    (tmp_path / "mine.yaml").write_text("require: true\n")
    assert main(["closure", str(quest.root)]) == 1
