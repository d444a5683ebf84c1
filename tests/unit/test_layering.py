"""The layout tells the layers: each folder imports exactly the folders ``ALLOWED`` names (imports
inside functions and imports by string included, ``if TYPE_CHECKING:`` ones not), no import
cycle, imports at the top of modules except in the places ``kernel/lazy.py`` declares, and no
module grown past one job's size. The code is parsed once per session (``parsed``)."""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from importlib.metadata import distribution
from pathlib import Path

from ds_gate.kernel.lazy import LAZY_PLACES

PACKAGE = Path(__file__).resolve().parents[2] / "ds_gate"
MAX_LINES = 300

# Which layer imports which, exactly: an edge the code does not use is not allowed either, so the
# table shrinks with the code. Bottom to top: the kernel (standard library only: the commit hook's
# path), io (the heavy parsers behind one door each, the user's cache folder), model (typed
# records and reports), sources (bytes in, documents out, with the reading problems they report),
# rules (pure checks), config (trusted settings, the quest's own, waivers), plugins (the manager
# and ds-gate's own rules as a plugin), recall (a library beside the engine), engine (every
# verdict), reporters; then the adapters, none of them imported by the core.
ALLOWED = {
    "kernel": set(),
    "io": {"kernel"},
    "model": {"kernel", "io"},
    "sources": {"kernel", "io", "model"},
    "rules": {"kernel", "io", "model", "sources"},
    "config": {"kernel", "io", "model", "sources", "rules"},
    "plugins": {"kernel", "model", "rules", "config"},
    "recall": {"kernel", "io", "model", "rules", "sources"},
    "engine": {"kernel", "io", "model", "sources", "rules", "config", "plugins"},
    "reporters": {
        "kernel",
        "model",
        "rules",
        "config",
        "plugins",
    },  # rules, config: rules shown apart; plugins: their formats
    "agent": {
        "kernel",
        "model",
        "sources",
        "rules",
        "config",  # the trusted recall_jsonl
        "recall",
        "engine",
        "reporters",
    },  # the agent's calls, the MCP server
    "integration": {
        "kernel",
        "io",
        "model",
        "sources",
        "rules",
        "agent",
    },  # DeepScientist's runtime answers through the agent's tools
    "setup": {"kernel", "model", "sources", "config", "plugins", "integration"},  # install and doctor
    "demo": {"kernel", "engine", "reporters", "agent", "setup", "integration"},
    "pytest": {"kernel", "model", "sources", "rules", "engine", "reporters"},
    "cli": {
        "kernel",
        "model",
        "sources",
        "rules",  # rule ID: the registry's explanation of one rule
        "config",
        "recall",
        "engine",
        "reporters",
        "agent",
        "setup",
        "integration",
        "demo",
    },
    "ds_gate": {"kernel", "model", "rules", "plugins", "recall", "engine", "agent"},  # the package's lazy API, by name
    "__main__": {"kernel", "cli"},
}
# One module's edges the table above does not give its layer, each with why.
EXCEPTIONS = {
    # the rules page collects every declared rule, also those declared above the rules layer (waivers, install):
    # it belongs above them, as an adapter (a move for the lead, issue 36)
    "ds_gate.rules.registry": {"config", "setup"},
}
IMPORT_CALLS = {"import_module", "__import__"}  # an import by string: importlib.import_module(...), __import__(...)
MODULE_ATTR = re.compile(r"(ds_gate(?:\.\w+)*):\w+")  # "module:attribute", an import by string as entry points spell it


@dataclass
class Module:
    """What the layout tests need of one module, read in one walk of its tree."""

    path: Path
    tree: ast.Module
    lines: int
    edges: set[str] = field(default_factory=set)  # the ds_gate modules it imports, by statement or by string
    body_imports: dict[str, list[str]] = field(default_factory=dict)  # function -> what it imports in its body
    string_imports: dict[str, list[int]] = field(
        default_factory=dict
    )  # function ("" at the top) -> import-by-string lines
    defined: set[str] = field(default_factory=set)  # its top-level functions (and methods)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _read(name: str, path: Path, names: set[str], text: str | None = None) -> Module:
    """One walk of the module's tree (``text``: its source, when it is not read from ``path``)."""
    text = path.read_text() if text is None else text
    module = Module(path, ast.parse(text), len(text.splitlines()))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def target(dotted: str) -> None:
        if dotted in names and dotted != name:
            module.edges.add(dotted)

    def visit(node: ast.AST, owner: str) -> None:
        if _is_type_checking(node):
            return  # never executed: not an edge
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            module.defined.add(node.name)
            owner = owner or node.name  # the outermost function owns what its inner ones import
        if isinstance(node, ast.Import):
            for alias in node.names:
                target(alias.name)
            if owner:
                module.body_imports.setdefault(owner, []).append(node.names[0].name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            for alias in node.names:
                target(f"{base}.{alias.name}" if f"{base}.{alias.name}" in names else base)
            if owner:
                module.body_imports.setdefault(owner, []).append(base or ".")
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in IMPORT_CALLS:
                module.string_imports.setdefault(owner, []).append(node.lineno)
                if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                    target(node.args[0].value)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and (found := MODULE_ATTR.fullmatch(node.value))
        ):
            target(found.group(1))
        for child in ast.iter_child_nodes(node):
            visit(child, owner)

    visit(module.tree, "")
    return module


@functools.cache
def parsed() -> dict[str, Module]:
    """Every module of the package, parsed once for all the tests here."""
    paths = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    return {name: _read(name, path, set(paths)) for name, path in paths.items()}


def import_graph() -> dict[str, set[str]]:
    """Module -> the ds_gate modules it imports anywhere: top level, inside a function, by string."""
    return {name: module.edges for name, module in parsed().items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "ds_gate"


def layer_edges() -> dict[str, set[str]]:
    """Layer -> the other layers its modules import (a module's own exceptions left out)."""
    used: dict[str, set[str]] = {name: set() for name in ALLOWED}
    for a, targets in import_graph().items():
        used[layer(a)].update(
            layer(b) for b in targets if layer(b) != layer(a) and layer(b) not in EXCEPTIONS.get(a, ())
        )
    return used


def test_the_graph_is_read_from_the_code() -> None:
    graph = import_graph()
    assert "ds_gate.engine.loader" in graph["ds_gate.engine.gate"]
    assert "ds_gate.engine.quest_memory" in graph["ds_gate.engine.gate"]  # a function-level import is an edge too
    assert "ds_gate.plugins.hookspecs" in graph["ds_gate.plugins.manager"]  # ... and one inside a function
    assert "ds_gate.engine.gate" in graph["ds_gate"]  # an import by string ("module:attribute") too
    assert "ds_gate.model.findings" not in graph["ds_gate.plugins.manager"]  # under TYPE_CHECKING: not an edge


def test_an_import_by_string_is_an_edge() -> None:
    probe = (
        'import importlib\nREPORTER = "ds_gate.engine.gate:evaluate"\n\n'
        'def rules():\n    return importlib.import_module("ds_gate.rules.patch")\n'
    )
    names = {"ds_gate.kernel.probe", "ds_gate.engine.gate", "ds_gate.rules.patch"}
    found = _read("ds_gate.kernel.probe", PACKAGE / "kernel" / "probe.py", names, probe)
    assert found.edges == {"ds_gate.engine.gate", "ds_gate.rules.patch"} and found.string_imports == {"rules": [5]}


def test_no_import_cycle() -> None:
    assert find_cycle(import_graph()) is None


def test_the_cycle_finder_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_no_module_is_over_the_size_of_one_job() -> None:
    assert {name: m.lines for name, m in parsed().items() if m.lines > MAX_LINES} == {}


def test_each_layer_imports_only_the_layers_it_may() -> None:
    bad = sorted(
        f"{layer(a)} -> {layer(b)} ({a} -> {b})"
        for a, targets in import_graph().items()
        for b in targets
        if layer(a) != layer(b) and layer(b) not in ALLOWED[layer(a)] | EXCEPTIONS.get(a, set())
    )
    assert bad == []


def test_every_allowed_edge_is_used() -> None:
    """The table is the code's, not a wish: an edge nothing uses any more is taken out of it."""
    used = layer_edges()
    assert {name: sorted(allowed - used[name]) for name, allowed in ALLOWED.items() if allowed - used[name]} == {}
    graph = import_graph()
    for module, layers in EXCEPTIONS.items():
        assert layers <= {layer(b) for b in graph[module]}, module


def test_every_folder_is_a_layer_of_the_table() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    loose = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    assert folders == set(ALLOWED) - {"ds_gate", "__main__"} and loose == set()


def test_the_layer_check_finds_a_climb() -> None:
    assert "engine" not in ALLOWED["sources"] and "sources" in ALLOWED["engine"]


def _declared(module: str, function: str) -> bool:
    return function in LAZY_PLACES.get(module, ("", ()))[1]


def test_imports_inside_functions_only_in_the_declared_lazy_places() -> None:
    undeclared = {
        f"{name}:{function}": imported
        for name, module in parsed().items()
        for function, imported in module.body_imports.items()
        if not _declared(name, function)
    }
    assert undeclared == {}


def test_imports_by_string_only_in_the_declared_lazy_places() -> None:
    """``importlib.import_module`` and ``__import__`` hide an import from a module's header: only
    where ``kernel/lazy.py`` says why, and never at the top of a module."""
    undeclared = {
        f"{name}:{function or '<top>'}": lines
        for name, module in parsed().items()
        for function, lines in module.string_imports.items()
        if not _declared(name, function)
    }
    assert undeclared == {}


def test_the_lazy_places_are_few_and_each_is_real() -> None:
    """Each declared module exists, says why in a sentence, and each function it names is
    defined there and imports in its body (or by string): a place that stopped importing is
    taken out of the table."""
    modules = parsed()
    assert len(LAZY_PLACES) <= 25
    for name, (why, functions) in LAZY_PLACES.items():
        assert name in modules and len(why) > 20, name
        module = modules[name]
        idle = [f for f in functions if f not in module.body_imports and f not in module.string_imports]
        assert functions and not idle, f"{name}: {idle or 'no function'} imports nothing in its body"


def test_the_entry_points_name_real_functions() -> None:
    """The distribution's scripts and entry points are imports by string too: each names a module
    of the package (or the pytest entry point beside it) and a function defined there."""
    modules = parsed()
    for entry in distribution("ds-gate").entry_points:
        name, _, function = entry.value.partition(":")
        assert name in modules or (PACKAGE.parent / f"{name}.py").is_file(), entry
        assert not function or function in modules[name].defined, entry


def test_typing_is_imported_as_usual_outside_the_kernel() -> None:
    spelt = sorted(
        name
        for name, m in parsed().items()
        if "TYPE_CHECKING = False" in m.path.read_text() and "kernel" not in m.path.parts
    )
    assert spelt == []


def test_each_rule_id_is_written_once() -> None:
    """A rule id is spelt in its ``Rule(...)`` declaration only; everything else names the Rule."""
    from ds_gate.rules.registry import builtin_rules

    sources = {name: m.path.read_text() for name, m in parsed().items()}
    spelt = {rule.id: [m for m, text in sources.items() if f'"{rule.id}"' in text] for rule in builtin_rules()}
    assert {rule: where for rule, where in spelt.items() if len(where) != 1} == {}


def test_the_architecture_page_names_every_layer_of_the_table() -> None:
    """ARCHITECTURE.md's layer diagram lists the folders the table above governs, and no other."""
    page = (PACKAGE.parent / "ARCHITECTURE.md").read_text()
    diagram = page.split("```")[1]
    named = {line.split()[0].rstrip("/") for line in diagram.splitlines() if line and not line.startswith(" ")}
    assert named - {"adapters"} | {"cli", "setup", "agent", "integration", "pytest", "demo"} == set(ALLOWED) - {
        "ds_gate",
        "__main__",
    }
    for adapter in ("cli/", "setup/", "agent/", "integration/", "pytest/", "demo/"):
        assert adapter in diagram
