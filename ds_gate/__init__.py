"""ds-gate: experience-distillation closure discipline for DeepScientist quests.

The public API is imported lazily, so ``import ds_gate`` (and the commit hook) stays
cheap; see ``__all__``.
"""

from __future__ import annotations

from ds_gate.kernel.version import __version__ as __version__

_API = {
    "load_quest": "ds_gate.engine.gate",
    "evaluate": "ds_gate.engine.gate",
    "list_distill_candidates": "ds_gate.engine.gate",
    "validate_files": "ds_gate.engine.documents",
    "commit_check": "ds_gate.engine.commit",
    "install": "ds_gate.hooks.install",
    "validate_cross_quest_patch": "ds_gate.rules.patch",
    "evaluate_lineage": "ds_gate.engine.lineage",
    "read_cards": "ds_gate.sources.memory",
    "parse_card": "ds_gate.sources.memory",
    "resolve_home": "ds_gate.sources.memory",
    "Card": "ds_gate.model.records",
    "hookimpl": "ds_gate.plugins.hookspecs",
    "list_knowledge_summaries": "ds_gate.recall.api",
    "normalize_tags": "ds_gate.recall.tags",
    "list_recent": "ds_gate.engine.recent",
    "apply_waivers": "ds_gate.config.waivers",
    "coerce_toggle": "ds_gate.sources.quest_yaml",
    "is_completed": "ds_gate.rules.coverage",
    "Finding": "ds_gate.model.findings",
    "Rule": "ds_gate.model.findings",
    "CheckContext": "ds_gate.model.context",
    "Document": "ds_gate.model.records",
    "Quest": "ds_gate.model.records",
    "Report": "ds_gate.model.reports",
    "GateReport": "ds_gate.model.reports",
    "Run": "ds_gate.model.records",
    "QuestError": "ds_gate.kernel.errors",
}
__all__ = sorted(_API)


def __getattr__(name: str) -> object:
    # no module-level imports at all: the commit hook imports this package on every commit
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'ds_gate' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
