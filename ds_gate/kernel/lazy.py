"""The declared places of laziness: every function that imports in its body, and why.

ARCHITECTURE.md ("Imports, and the one declared place of laziness") states the mechanism;
``tests/unit/test_layering.py`` reads this table and fails on a function-body import or an
import by string anywhere else, and on a function named here that imports nothing.
"""

from __future__ import annotations

# module -> (why, the functions of it that import in their body)
LAZY_PLACES: dict[str, tuple[str, tuple[str, ...]]] = {
    "ds_gate": ("the public API, re-exported by name so `import ds_gate` loads nothing", ("__getattr__",)),
    "ds_gate.__main__": (
        "the hook's checkpoint answer, and a recall's kept answer, come from the kernel before the command line loads",
        ("_hook_fast_path", "_kept_recall"),
    ),
    "ds_gate.cli.entry": (
        "the console script: a recall's kept answer and a push's pass from the kernel, else the command line, loaded only then",
        ("main",),
    ),
    "ds_gate.kernel.checkpoint": (
        "the record triage and the finalization reader load only when a file they judge is staged",
        ("_none_judged", "_records_fine", "_completes"),
    ),
    "ds_gate.kernel.push": (
        "the finalization readers load only when a push sends quest.yaml or decisions",
        ("_sends_nothing_final",),
    ),
    "ds_gate.kernel.finalizing": (
        "json (with re and enum) only for a decision the kernel reader refused (UTF-16/32)",
        ("as_python_reads",),
    ),
    "ds_gate.kernel.jsondoc": (
        "json's own decoder only to word an error or place a finding (json loads re and enum)",
        ("_c_scanner", "_decode", "_member_start", "_skip_value"),
    ),
    "ds_gate.kernel.resources": (
        "pathlib only for a caller that asks for a folder, never on the hook's path",
        ("data_dir",),
    ),
    "ds_gate.kernel.schema_fast": (
        "re (with enum) only for a schema pattern the fast checks do not know",
        ("_pattern",),
    ),
    "ds_gate.kernel.git": ("hashlib (OpenSSL) only for a SHA-256 repository or a Python without _sha1", ("blob_id",)),
    "ds_gate.kernel.spawn": ("subprocess only on a platform without os.posix_spawn", ("start",)),
    "ds_gate.io.yamldoc": (
        "PyYAML only when a YAML text is read",
        ("over_values", "_loader", "load_yaml", "_compose", "line_of"),
    ),
    "ds_gate.io.schemas": (
        "jsonschema only when a document is not plainly valid (its errors are worded)",
        ("validator",),
    ),
    "ds_gate.recall.problems": (
        "the card and lineage rules (jsonschema) only for a recalled card the fast schema check refuses",
        ("_findings",),
    ),
    "ds_gate.plugins.manager": ("pluggy and its markers only when a plugin is installed", ("manager",)),
    "ds_gate.reporters.registry": (
        "a built-in format's module when that format is asked for, a plugin's \"module:Class\" when its format is, "
        "the plugin manager only when a format is not built in",
        ("reporter_class", "get", "available"),
    ),
    "ds_gate.cli.main": ("the command table: one command's module per run", ("build_parser",)),
    "ds_gate.agent.mcp_server": (
        "the optional mcp extra (with its pydantic), loaded when the server starts",
        ("server_class", "build_server"),
    ),
    "ds_gate.agent.mcp_limits": (
        "the optional mcp extra (with its anyio), loaded when the server starts",
        ("bounded_stdio", "run_stdio"),
    ),
    "ds_gate.pytest.plugin": (
        "registered in every pytest session by its entry point: the gate loads only under --ds-gate",
        ("pytest_configure", "pytest_load_initial_conftests"),
    ),
    "ds_gate.integration.boot": (
        "copied into DeepScientist's runtime: loads its sibling under the name it has there",
        ("_wrap_module",),
    ),
    "ds_gate.integration.wrap": (
        "copied into DeepScientist's runtime: its sibling and DeepScientist's metadata, once they exist",
        ("_sibling", "version_problem"),
    ),
    "ds_gate.integration.tools": (
        "copied into DeepScientist's runtime: the mcp SDK is DeepScientist's, loaded when a tool is built",
        ("_add_ours",),
    ),
}
