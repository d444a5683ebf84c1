"""What each gate option means, written once; the CLI and the pytest plugin phrase their help from it.

The two surfaces spell the options differently (``--require`` and ``--ds-gate-require``,
plus an ini name) and word the help for their readers, but the meaning is this one text.
Imports nothing: the commit hook builds every command's parser on each commit.
"""

from __future__ import annotations


class Default(str):
    """An option's value when its flag was not given: the trusted configuration (or, where
    it cannot lower a verdict, the quest's ``.ds-gate.yaml``/``[tool.ds-gate]``) may replace
    it, a flag the caller typed never."""

    __slots__ = ()


PATHS = "quests or DeepScientist homes to check"
HOME = "the DeepScientist home"
HOME_DEFAULT = "(default: $DEEPSCIENTIST_HOME, $DS_HOME, ~/DeepScientist)"
REQUIRE = "enforce the gate even where experience_distill is off"
NO_REQUIRE = ("do not enforce the closure gate, even where experience_distill is on (now or in any quest.yaml the "
              "gate can see); only a trusted caller can say this, never the quest")
ACCEPT = ("let the waivers written inside the quest (.ds-gate.yaml) lower the verdict; without it they are proposals "
          "that are printed but waive nothing. Rules that fail closed are never waived")
CONFIG = ("the trusted configuration file (default: $DS_GATE_CONFIG, else $XDG_CONFIG_HOME/ds-gate/config.yaml or "
          "~/.config/ds-gate/config.yaml); it must lie outside the quest")
FROM_GIT = "read artifacts from the tips of git branches"
REFS = "the refs to read (repeatable; default: refs/heads and refs/remotes)"

# the CLI: ds-gate check/closure/candidates/recent/lineage/recall/commit-check/pre-push
CLI_HOME = f"{HOME} (default: $DEEPSCIENTIST_HOME, $DS_HOME, home in the trusted configuration, ~/DeepScientist)"
CLI_FROM_GIT = f"{FROM_GIT} instead of the worktree folders (CI clones)"
CLI_ALSO_GIT = "read artifacts from the worktree folders and from the tips of git branches"
CLI_REFS = f"with --from-git/--also-git: {REFS}"
NO_CACHE = ("neither read nor write the cache of record files (in $DS_GATE_CACHE_DIR, else $XDG_CACHE_HOME/ds-gate "
            "or ~/.cache/ds-gate); the verdict is the same either way")
CLI_NO_CACHE = NO_CACHE

# pytest: GateOptions field -> its flag and help, its ini name and help (``--ds-gate-refs`` has no ini);
# the flag's dest is ``ds_gate_<field>``
PYTEST: dict[str, dict[str, str]] = {
    "paths": {"flag": "--ds-gate", "help": "check this quest (or every quest of this DeepScientist home), one test item "
              "per check; repeatable", "ini": "ds_gate_paths", "ini_help": f"{PATHS} (as --ds-gate)"},
    "home": {"flag": "--ds-gate-home", "help": f"{HOME} for global cards {HOME_DEFAULT}",
             "ini": "ds_gate_home", "ini_help": f"{HOME} (as --ds-gate-home)"},
    "require": {"flag": "--ds-gate-require", "help": REQUIRE.replace("the gate", "the closure gate"),
                "ini": "ds_gate_require", "ini_help": REQUIRE},
    "source": {"flag": "--ds-gate-from-git", "help": f"{FROM_GIT} (a CI clone has no worktree folders)",
               "ini": "ds_gate_from_git", "ini_help": f"{FROM_GIT} (as --ds-gate-from-git)"},
    "refs": {"flag": "--ds-gate-refs", "help": f"with --ds-gate-from-git: {REFS}"},
    "no_cache": {"flag": "--ds-gate-no-cache", "help": NO_CACHE},
    "no_require": {"flag": "--ds-gate-no-require", "help": NO_REQUIRE},
    "accept_quest_waivers": {"flag": "--ds-gate-accept-quest-waivers", "help": ACCEPT,
                             "ini": "ds_gate_accept_quest_waivers", "ini_help": f"{ACCEPT} (as --ds-gate-accept-quest-waivers)"},
}
