"""The pre-push gate: pushing a finalization commit to a shared remote is gated too.

A push finalizes when the commits it sends (those no remote-tracking ref has yet) touch a
finalization file and the pushed tip holds it finalizing: the paper bundle manifest (the
workspace's own, or of a workspace root ``research_state.json`` names: ``sources.named_roots``),
a ``quest.yaml`` or ``.ds/runtime_state.json`` whose status is ``completed``, a finalize or
quest_completion decision (in any ``.json`` file: ``kernel.finalizing``), or a plugin's pattern. Then the
closure gate runs over the git source (every branch tip, plus the commits being pushed), so
it sees what the remote will see; an ordinary push is never blocked because runs are pending.

The pushed refs are read by ``kernel.push`` (``pushed_tips``, ``remote_holds``, ``read_stdin``),
which also answers the common push (nothing final sent) before this module loads. Under the
pre-commit framework, which names one pushed ref at most, those are every local branch, tag and
HEAD holding a commit the remote lacks: a superset of what the push sends.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ds_gate.config.quest import configured_require, read_quest_config
from ds_gate.engine.gate import Gate, load_quest
from ds_gate.engine.options import GateOptions
from ds_gate.engine.unseen import as_closure_sees
from ds_gate.kernel.errors import NotAQuest, shown
from ds_gate.kernel.layout import MANIFEST, RESEARCH_STATE, is_manifest_name
from ds_gate.kernel.links import may_hold, pushed_names
from ds_gate.kernel.push import (
    PUSHED_ALONE,
    hidden,
    hiding_places,
    json_files,
    linked,
    names_in_range,
    tip_blobs,
)
from ds_gate.model.reports import SCOPES, GateReport
from ds_gate.plugins.manager import finalization_patterns
from ds_gate.rules.finalization import push_reasons
from ds_gate.sources.location import locate
from ds_gate.sources.named_roots import hook_roots


def finalization_reasons(root: Path, tip: str, holds: Sequence[str] = PUSHED_ALONE) -> list[str]:
    """Why the commits a push sends (up to ``tip``, those ``holds`` lack) finalize the quest ([] when they do not)."""
    names = names_in_range(root, tip, holds)
    if not names:
        return []

    places = hiding_places(names)
    # a file named as the manifest below the top: the workspace roots research_state.json names are read
    named = any(is_manifest_name(name) and name != MANIFEST for name in names)
    files = [*json_files(names), *([RESEARCH_STATE] if named and RESEARCH_STATE not in names else [])]
    blobs, modes = tip_blobs(str(root), tip, files, places)  # by blob id
    unseen = hidden(places, modes)  # a link or gitlink where a record or a finalization file would be
    nested: tuple[str, ...] = ()
    blind: list[str] = []
    if named:
        state = blobs.get(f"{tip}:{RESEARCH_STATE}")
        nested, roots = hook_roots(str(root), str(root), state if isinstance(state, bytes) else None)
        blind = [f"{r.key} {shown(r.value, 80)}" for r in roots]
    names = pushed_names(str(root), tip, names, blobs, linked(modes), nested)  # through a link inside the quest
    held = {path for path in (MANIFEST, *nested) if path in names and may_hold(str(root), tip, path)}  # links too
    return push_reasons(names, tip, blobs, held, finalization_patterns(), unseen, nested, blind)


def push_check(
    cwd: Path | str,
    pushes: Sequence[tuple[str, str]],
    *,
    require: bool = False,
    refs: Sequence[str] | None = None,
    holds: Sequence[str] = PUSHED_ALONE,
) -> GateReport | None:
    """The push's verdict, or None when it finalizes nothing. ``holds``: what the remote already
    holds (``kernel.push.remote_holds``)."""
    try:
        root, stop = locate(cwd).root, None
    except NotAQuest as exc:  # no quest.yaml: an ordinary push goes; a finalizing one stops
        root, stop = Path(exc.root), exc
    reasons: list[str] = []
    for name, tip in pushes:
        reasons.extend(f"{r} at {name}" for r in finalization_reasons(root, tip, holds))
    if not reasons:
        return None
    if stop is not None:
        raise stop.then(
            f"this push finalizes ({'; '.join(reasons)}), so the pre-push hook stops "
            "(in a repository that is no quest: `git push --no-verify`)"
        )

    config = read_quest_config(root)  # once, for the require setting and both gate runs
    asked = GateOptions(require=require or configured_require(config), finalization=tuple(reasons))
    quest = load_quest(root, source="git", refs=refs, extra_tips=list(pushes), config=config)
    report = Gate(quest, SCOPES["pre-push"], asked, config=config).run()
    if report.enforced:  # what the remote will hold; and what `closure` reads here?
        report = as_closure_sees(
            report, Gate(cwd, SCOPES["pre-push"], asked, config=config).run(), "no commit holds yet"
        )
    return report
