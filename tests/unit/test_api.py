"""The public API: a small ``__all__`` (the entry points and the model types), imported by name on
first use, and typed for its users through ``ds_gate/__init__.pyi``, which must say what the
functions it stands for take."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ds_gate

STUB = Path(ds_gate.__file__).with_suffix(".pyi")


def stub() -> ast.Module:
    return ast.parse(STUB.read_text())


def test_every_public_name_is_typed_and_loads() -> None:
    tree = stub()
    typed = {
        alias.asname for node in tree.body if isinstance(node, ast.ImportFrom) for alias in node.names if alias.asname
    }
    typed |= {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert typed == set(ds_gate.__all__)
    assert all(getattr(ds_gate, name) is not None for name in ds_gate.__all__)
    with pytest.raises(AttributeError):
        ds_gate.coerce_toggle  # noqa: B018 - a helper, not the API


def test_the_stub_reexports_what_the_package_loads() -> None:
    for node in stub().body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ds_gate"):
            for alias in node.names:
                assert getattr(ds_gate, alias.asname or alias.name) is getattr(
                    importlib.import_module(node.module), alias.name
                )


def test_each_stub_signature_is_one_the_function_takes() -> None:
    """Every parameter the stub gives is the function's own, of the same kind and default; the
    function may take more (internal ones the stub leaves out), through ``**options`` too."""
    for node in stub().body:
        if not isinstance(node, ast.FunctionDef):
            continue
        real = inspect.signature(getattr(ds_gate, node.name)).parameters
        rest = any(p.kind is p.VAR_KEYWORD for p in real.values())
        positional = node.args.posonlyargs + node.args.args
        defaults = dict(
            zip(
                [a.arg for a in positional][len(positional) - len(node.args.defaults) :],
                node.args.defaults,
                strict=True,
            )
        )
        defaults |= {
            a.arg: d for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True) if d is not None
        }
        for index, arg in enumerate(positional):
            assert list(real)[index] == arg.arg, (node.name, arg.arg)
        for arg in [*positional, *node.args.kwonlyargs]:
            if arg.arg not in real:
                assert rest and arg in node.args.kwonlyargs, (node.name, arg.arg)
                continue
            if arg.arg in defaults:
                assert real[arg.arg].default == ast.literal_eval(defaults[arg.arg]), (node.name, arg.arg)
            else:
                assert real[arg.arg].default is inspect.Parameter.empty, (node.name, arg.arg)


def test_the_stub_names_no_internal_type() -> None:
    """A signature users see holds the standard library's types and the model's, nothing else."""
    public = {"ds_gate.model.", "ds_gate.kernel.errors", "ds_gate.plugins.hookspecs"}
    modules = {node.module for node in stub().body if isinstance(node, ast.ImportFrom)}
    assert {m for m in modules if m and m.startswith("ds_gate") and not m.startswith(tuple(public))} == set()


def test_the_package_candidates_are_the_mcp_tools() -> None:
    from ds_gate.agent import tools

    assert (
        ds_gate.list_distill_candidates is tools.list_distill_candidates
    )  # the same dict as the MCP tool of that name


USER = """
    from pathlib import Path

    import ds_gate
    from ds_gate import GateReport, Rule, hookimpl


    def gate(path: Path) -> bool:
        report: GateReport = ds_gate.evaluate(path, "closure", home=path.parent)
        pending: list[str] = report.pending_run_ids
        quest = ds_gate.load_quest(str(path), cache=False)
        candidates = ds_gate.list_distill_candidates(path)["candidates"]
        rows = ds_gate.list_knowledge_summaries(["stage:experiment"], limit=5, home=path)
        recent = ds_gate.list_recent(path, kind="run")
        lineage = ds_gate.evaluate_lineage(path, [path])
        verdict = ds_gate.commit_check(path)
        documents, readable = ds_gate.validate_files([path])
        found = ds_gate.validate_cross_quest_patch(None, {"id": "x"}, "002")
        return (report.ok and not pending and bool(quest.runs) and lineage.ok and readable and not found
                and verdict is None and bool(candidates) and bool(rows) and bool(recent) and documents.ok)


    RULE = Rule("lab.x", "error", "discipline", "a lab's rule")


    @hookimpl
    def ds_gate_finalization_patterns() -> list[str]:
        return ["paper/*.pdf"]
"""


@pytest.mark.slow  # mypy, in a process of its own
def test_a_user_file_calling_the_api_passes_mypy_strict(tmp_path: Path) -> None:
    (tmp_path / "user.py").write_text(textwrap.dedent(USER))
    (tmp_path / "wrong.py").write_text("import ds_gate\n\nds_gate.evaluate(1)\nds_gate.coerce_toggle('on')\n")
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache")]
    done = subprocess.run([*mypy, "user.py"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    wrong = subprocess.run([*mypy, "wrong.py"], cwd=tmp_path, capture_output=True, text=True)
    assert 'incompatible type "int"' in wrong.stdout and '"coerce_toggle"' in wrong.stdout, wrong.stdout
