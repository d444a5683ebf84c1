"""ds-gate: experience-distillation closure discipline for DeepScientist quests.

The public API (``__all__``) is imported by name on first use, so ``import ds_gate`` (the commit
hook's too) loads nothing more; ``__init__.pyi`` gives type checkers its signatures.
"""

from __future__ import annotations

from ds_gate.kernel.version import __version__ as __version__

# name -> the "module:attribute" it is
_API = {
    "evaluate": "ds_gate.engine.gate:evaluate",
    "load_quest": "ds_gate.engine.gate:load_quest",
    "list_distill_candidates": "ds_gate.agent.tools:list_distill_candidates",  # what the MCP tool of that name answers
    "list_knowledge_summaries": "ds_gate.recall.api:list_knowledge_summaries",
    "list_recent": "ds_gate.engine.recent:list_recent",
    "commit_check": "ds_gate.engine.commit:commit_check",
    "validate_files": "ds_gate.engine.documents:validate_files",
    "validate_cross_quest_patch": "ds_gate.rules.patch:validate_cross_quest_patch",
    "evaluate_lineage": "ds_gate.engine.lineage:evaluate_lineage",
    "hookimpl": "ds_gate.plugins.hookspecs:hookimpl",
    "Quest": "ds_gate.model.records:Quest",
    "Run": "ds_gate.model.records:Run",
    "Card": "ds_gate.model.records:Card",
    "Document": "ds_gate.model.records:Document",
    "Finding": "ds_gate.model.findings:Finding",
    "Rule": "ds_gate.model.findings:Rule",
    "CheckContext": "ds_gate.model.context:CheckContext",
    "Report": "ds_gate.model.reports:Report",
    "GateReport": "ds_gate.model.reports:GateReport",
    "LineageReport": "ds_gate.model.reports:LineageReport",
    "DocumentsReport": "ds_gate.model.reports:DocumentsReport",
    "QuestError": "ds_gate.kernel.errors:QuestError",
}
__all__ = sorted(_API)


def __getattr__(name: str) -> object:
    target = _API.get(name)
    if target is None:
        raise AttributeError(f"module 'ds_gate' has no attribute {name!r}")
    import importlib

    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)
