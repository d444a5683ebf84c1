"""The layout tells the layers: each folder imports only the folders ``ALLOWED`` names (imports
inside functions included, ``if TYPE_CHECKING:`` ones not), no import cycle, imports at the
top of modules except in the declared lazy places, and no module grown past one job's size."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "ds_gate"
MAX_LINES = 300

# Which layer may import which; a layer not named here may not be imported. Bottom to top:
# the kernel (standard library only: the commit hook's path), io (the heavy parsers behind one
# door each, the user's cache folder), model (typed records and reports), sources (bytes in,
# documents out, with the reading problems they report), rules (pure checks), config (trusted
# settings, the quest's own, waivers), plugins (the manager and ds-gate's own rules as a plugin),
# recall (a library beside the engine), engine (every verdict), reporters; then the adapters.
LOWER = {
    "kernel": set(),
    "io": {"kernel"},
    "model": {"kernel", "io"},
    "sources": {"kernel", "io", "model"},
    "rules": {"kernel", "io", "model", "sources"},
    "config": {"kernel", "io", "model", "sources", "rules"},
    "plugins": {"kernel", "io", "model", "sources", "rules", "config"},
    "recall": {"kernel", "io", "model", "sources"},
    "engine": {"kernel", "io", "model", "sources", "rules", "config", "plugins"},
    "reporters": {"kernel", "model", "rules", "config", "plugins"},  # rules, config: rules shown apart; plugins: their formats
}
CORE = set(LOWER)
ALLOWED = {
    **LOWER,
    # adapters: each calls the layers below and renders; none is imported by the core
    "agent": CORE - {"plugins"},  # the agent's calls as dicts (tools), the MCP server, the skill
    "integration": {"kernel", "io", "model", "sources", "rules", "agent"},  # DeepScientist's runtime answers through the agent's tools
    "hooks": {"kernel", "io", "model", "sources", "config", "plugins", "integration"},  # install and doctor
    "demo": CORE | {"agent", "hooks", "integration"},
    "pytest": CORE,
    "cli": CORE | {"agent", "hooks", "integration", "demo"},
    "ds_gate": {"kernel"},  # the package's lazy API (kernel.version)
    "__main__": {"kernel", "engine", "cli"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Inside ``if TYPE_CHECKING:``: never executed, so not an edge."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return True
    return False


def import_graph() -> dict[str, set[str]]:
    """Module -> the ds_gate modules it imports anywhere (top level or inside a function)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if _type_checking_only(node, parents):
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


@pytest.mark.slow
def test_the_graph_is_read_from_the_code() -> None:
    graph = import_graph()
    assert "ds_gate.engine.loader" in graph["ds_gate.engine.gate"]
    assert "ds_gate.engine.quest_memory" in graph["ds_gate.engine.gate"]  # a function-level import is an edge too


@pytest.mark.slow
def test_no_import_cycle() -> None:
    assert find_cycle(import_graph()) is None


def test_the_cycle_finder_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_no_module_is_over_the_size_of_one_job() -> None:
    big = {module_name(p): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert big == {}


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "ds_gate"


@pytest.mark.slow
def test_each_layer_imports_only_the_layers_it_may() -> None:
    bad = sorted(f"{a} -> {b}" for a, targets in import_graph().items() for b in targets
                 if layer(a) != layer(b) and layer(b) not in ALLOWED[layer(a)])
    assert bad == []


def test_every_folder_is_a_layer_of_the_table() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    loose = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    assert folders == set(ALLOWED) - {"ds_gate", "__main__"} and loose == set()


def test_the_layer_check_finds_a_climb() -> None:
    assert "engine" not in ALLOWED["sources"] and "sources" in ALLOWED["engine"]


def function_body_imports() -> dict[str, list[str]]:
    """``module:function`` -> what it imports inside that function (the outermost function)."""
    found: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for top in ast.walk(tree):
            if not isinstance(top, ast.Module):
                continue
            stack: list[tuple[ast.AST, str | None]] = [(child, None) for child in ast.iter_child_nodes(top)]
            while stack:
                node, owner = stack.pop()
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and owner is None:
                    owner = node.name
                if owner is not None and isinstance(node, (ast.Import, ast.ImportFrom)):
                    name = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                    found.setdefault(f"{module_name(path)}:{owner}", []).append(name or ".")
                stack.extend((child, owner) for child in ast.iter_child_nodes(node))
    return found


@pytest.mark.slow
def test_imports_inside_functions_only_in_the_declared_lazy_places() -> None:
    from ds_gate.kernel.lazy import LAZY_PLACES

    undeclared = {place: names for place, names in function_body_imports().items()
                  if place not in LAZY_PLACES and place.partition(":")[0] not in LAZY_PLACES}
    assert undeclared == {}


def test_the_lazy_places_are_few_and_each_says_why() -> None:
    from ds_gate.kernel.lazy import LAZY_PLACES, __lazy_modules__

    assert len(LAZY_PLACES) <= 20 and all(len(why) > 20 for why in LAZY_PLACES.values())
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    assert {place.partition(":")[0] for place in LAZY_PLACES} <= set(paths)  # each names a real module
    for place in LAZY_PLACES:  # ... and a real function of it
        module, _, function = place.partition(":")
        defined = {n.name for n in ast.walk(ast.parse(paths[module].read_text()))
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        assert not function or function in defined, place
    assert "yaml" in __lazy_modules__ and "jsonschema" in __lazy_modules__


def test_typing_is_imported_as_usual_outside_the_kernel() -> None:
    spelt = sorted(module_name(p) for p in PACKAGE.rglob("*.py")
                   if "TYPE_CHECKING = False" in p.read_text() and "kernel" not in p.parts)
    assert spelt == []


def test_each_rule_id_is_written_once() -> None:
    """A rule id is spelt in its ``Rule(...)`` declaration only; everything else names the Rule."""
    from ds_gate.rules.registry import builtin_rules

    sources = {module_name(p): p.read_text() for p in PACKAGE.rglob("*.py")}
    spelt = {rule.id: [m for m, text in sources.items() if f'"{rule.id}"' in text] for rule in builtin_rules()}
    assert {rule: where for rule, where in spelt.items() if len(where) != 1} == {}


def test_the_architecture_page_names_every_layer_of_the_table() -> None:
    """ARCHITECTURE.md's layer diagram lists the folders the table above governs, and no other."""
    page = (PACKAGE.parent / "ARCHITECTURE.md").read_text()
    diagram = page.split("```")[1]
    named = {line.split()[0].rstrip("/") for line in diagram.splitlines() if line and not line.startswith(" ")}
    assert named - {"adapters"} | {"cli", "hooks", "agent", "integration", "pytest", "demo"} == set(ALLOWED) - {"ds_gate", "__main__"}
    for adapter in ("cli/", "hooks/", "agent/", "integration/", "pytest/", "demo/"):
        assert adapter in diagram
