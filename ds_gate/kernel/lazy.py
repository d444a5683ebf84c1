"""The one declared place of laziness (in the spirit of PEP 810's ``__lazy_modules__``).

Everywhere else ds-gate imports at the top of a module, so a module's header tells its
dependencies. Three libraries are heavy enough that loading them for a run that does not
need them would be felt on every checkpoint or every repeated ``closure`` (``python -X
importtime``: jsonschema with referencing ~80 ms, pluggy with importlib.metadata ~40 ms,
PyYAML ~20 ms); the optional ``mcp`` SDK may be absent. Each is reached through ``load``,
from the one module that wraps it (``io.yamldoc``, ``io.schemas``, ``plugins.manager``,
``agent.mcp_server``). The other declared lazy places are listed in ``LAZY_PLACES``;
``tests/unit/test_layout.py`` fails on a function-body import anywhere else.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from types import ModuleType

__lazy_modules__ = (
    "yaml",
    "jsonschema",
    "referencing",
    "referencing.jsonschema",
    "pluggy",
    "importlib.metadata",
    "ds_gate.plugins.hookspecs",  # pluggy's markers, built when the module loads
    "mcp",
)

# "module:function" where an import statement in a function body is declared, and why.
LAZY_PLACES = {
    "ds_gate:__getattr__": "the public API, re-exported by name so `import ds_gate` loads nothing",
    "ds_gate.__main__": "the hook's checkpoint answer comes from the kernel before the command line loads",
    "ds_gate.kernel.checkpoint:_none_judged": "the finalization reader (the JSON reader) loads only when a JSON file is staged",
    "ds_gate.kernel.checkpoint:_records_fine": "the hook's record triage (the JSON reader, the schemas) loads only when a record is staged",
    "ds_gate.kernel.push:_sends_nothing_final": "the finalization readers load only when a push sends quest.yaml or decisions",
    "ds_gate.kernel.finalizing:_parsed": "json (with re and enum) only for a decision the kernel reader refused (UTF-16/32 bytes)",
    "ds_gate.kernel.jsondoc": "json's own decoder only to word an error or place a finding (json loads re and enum)",
    "ds_gate.kernel.resources:data_dir": "pathlib only for a caller that asks for a folder, never on the hook's path",
    "ds_gate.kernel.schema_fast:_pattern": "re (with enum) only for a schema pattern the fast checks do not know",
    "ds_gate.kernel.git:blob_id": "hashlib (OpenSSL) only for a SHA-256 repository or a Python without _sha1",
    "ds_gate.kernel.spawn:start": "subprocess only on a platform without os.posix_spawn",
    "ds_gate.cli.main:build_parser": "the command table: one command's module per run",
    "ds_gate.reporters.registry:reporter_class": "the format table: one format's reporter module, when it prints",
    "ds_gate.agent.mcp_server": "the optional mcp extra (with its pydantic), loaded when the server starts",
    "ds_gate.agent.mcp_limits": "the optional mcp extra (with its anyio), loaded when the server starts",
    "ds_gate.pytest.plugin": "registered in every pytest session by its entry point: the gate loads only under --ds-gate",
    "ds_gate.integration.boot": "copied into DeepScientist's runtime: imports DeepScientist's modules once they exist",
    "ds_gate.integration.wrap": "copied into DeepScientist's runtime: imports DeepScientist's modules once they exist",
    "ds_gate.integration.tools": "copied into DeepScientist's runtime: the mcp SDK is DeepScientist's, loaded when a tool is built",
}


def load(name: str) -> ModuleType:
    """The module ``name``, imported on first use; only the declared heavy ones."""
    if name not in __lazy_modules__:
        raise KeyError(f"{name} is not declared in ds_gate.kernel.lazy.__lazy_modules__")
    __import__(name)  # the import statement's own path (``-X importtime`` sees it), not importlib's
    return sys.modules[name]
