"""The one PluginManager: built-in rules first, then every ``ds_gate`` entry point.

Built once per process. The commit hook's fast path never builds it: loading entry
points costs ~50 ms, so the hook first looks, with a plain folder scan, whether any
installed distribution declares a ``ds_gate`` entry point at all.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING, Any

from ..errors import QuestError

if TYPE_CHECKING:
    import pluggy

    from ..model import Run

GROUP = "ds_gate"


class PluginError(QuestError):
    """A plugin could not be loaded or implements a hook that does not exist."""


@functools.cache
def manager() -> pluggy.PluginManager:
    import pluggy

    from .. import hookspecs
    from . import builtin

    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    pm.register(builtin, name="builtin")
    if any_installed():
        try:
            pm.load_setuptools_entrypoints(GROUP)
        except Exception as exc:  # noqa: BLE001 - a third party's import error, reported as such
            raise PluginError(f"a ds_gate plugin failed to load: {type(exc).__name__}: {exc}") from exc
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"{exc} (check the spelling against ds_gate.hookspecs)") from exc
    return pm


def plugin_names() -> list[str]:
    return [name for name, _ in manager().list_name_plugin() if name != "builtin"]


def completed_rule() -> Any:
    """``run -> bool``: the completed-run rule every plugin agrees on (first answer wins)."""
    hook = manager().hook.ds_gate_run_is_completed

    def is_completed(run: Run) -> bool:
        return bool(hook(run=run))

    return is_completed


@functools.cache
def any_installed() -> bool:
    """True when some distribution on ``sys.path`` declares a ``[ds_gate]`` entry point.

    A scan of ``*.dist-info/entry_points.txt``: a few milliseconds where importlib.metadata
    costs fifty, and the same answer for installed distributions.
    """
    for folder in sys.path:
        try:
            entries = [e.name for e in os.scandir(folder or ".") if e.name.endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue
        for name in entries:
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"), encoding="utf-8") as f:
                    if f"[{GROUP}]" in f.read():
                        return True
            except OSError:
                continue
    return False
