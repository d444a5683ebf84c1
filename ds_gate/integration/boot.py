"""The bootstrap DeepScientist's runtime Python loads at start (through a ``.pth`` file), copied as
``_ds_gate_ds_boot.py``; standard library only (docs/deepscientist-integration.md).

At start it only puts one finder first on ``sys.meta_path``. When ``deepscientist.artifact.service``,
``deepscientist.mcp.server`` or ``deepscientist.prompts.builder`` is imported, the finder wraps the real loader so that, once the
module has run, ``wrap.patch`` checks and wraps it. ``python -m deepscientist.mcp.server`` never
imports the module (``runpy`` runs the loader's code as ``__main__``), so ``get_code`` answers a
shim that imports it normally and calls its ``main()``. Nothing here raises into DeepScientist: a
failure is one line on stderr and the module runs as it would without ds-gate.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

TARGETS = ("deepscientist.artifact.service", "deepscientist.mcp.server", "deepscientist.prompts.builder")
SERVER = "deepscientist.mcp.server"
SHIM = "import importlib as _i\nraise SystemExit(_i.import_module('deepscientist.mcp.server').main())\n"
PREFIX = "ds-gate (DeepScientist integration): "
_BROKEN: list[str] = []  # why the wrapping module could not be loaded, once


def _say(text: str) -> None:
    try:
        sys.stderr.write(PREFIX + text + "\n")
        sys.stderr.flush()
    except Exception:  # a closed stderr must not break DeepScientist
        pass


def _wrap_module() -> Any:
    """``wrap.py`` beside this file (``_ds_gate_ds_wrap`` in DeepScientist's environment,
    ``ds_gate.integration.wrap`` inside ds-gate), or None after one logged line."""
    if _BROKEN:
        return None
    name = __name__[: -len("boot")] + "wrap"
    try:
        import importlib

        return importlib.import_module(name)
    except Exception as exc:
        _BROKEN.append(f"{type(exc).__name__}: {exc}")
        _say(f"not loaded, nothing is wrapped ({_BROKEN[0]}); run ds-gate doctor")
        return None


def status() -> dict[str, Any]:
    """What the integration did in this process (``doctor`` asks it through the environment's Python)."""
    wrap = _wrap_module()  # None once it failed to load
    return wrap.status() if wrap is not None else {"state": "broken", "reason": _BROKEN[0], "wrapped": []}


class _Loader:
    """The real loader, with ds-gate's wrapping after the module has run."""

    def __init__(self, real: Any, name: str) -> None:
        self._real = real
        self._name = name

    def exec_module(self, module: ModuleType) -> None:
        self._real.exec_module(module)
        wrap = _wrap_module()
        if wrap is not None:
            try:
                wrap.patch(self._name, module)
            except Exception as exc:  # wrap.patch catches its own; this is the last guard
                _say(f"not wrapped ({type(exc).__name__}: {exc})")

    def get_code(self, fullname: str) -> Any:
        """``runpy`` (``python -m``) only: the shim when the server will be wrapped, else the real code."""
        if fullname == SERVER:
            wrap = _wrap_module()
            try:
                if wrap is not None and wrap.version_problem() is None:
                    return compile(SHIM, f"<ds-gate: {SERVER} as __main__>", "exec")
            except Exception as exc:
                _say(f"not wrapped ({type(exc).__name__}: {exc})")
        return self._real.get_code(fullname)

    def __getattr__(self, attr: str) -> Any:  # create_module and the rest: the real loader's
        return getattr(self._real, attr)


class Finder:
    """First on ``sys.meta_path``; answers only for the target modules."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in TARGETS:
            return None
        for finder in sys.meta_path:
            if finder is self or isinstance(finder, Finder):
                continue
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader, name)
                return spec
        return None


def install() -> None:
    """Called once from the ``.pth`` line; a second call (a nested ``site``) changes nothing."""
    if not any(isinstance(finder, Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, Finder())


if not __name__.startswith("ds_gate."):  # inside ds-gate (the demo, tests) nothing is hooked
    install()
