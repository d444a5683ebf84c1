"""``GateOptions``: what one gate run needs, however it was asked for (CLI flags or pytest options).

One shape for whichever surface asked, so each surface's rules (pytest's precedence of
options over ini values, ``candidates`` having no ``--require``) live in one constructor
and the engine is called the same way. Loaded by ``run`` of the gate commands (not on the
commit hook's path: ``dataclasses`` costs ~6 ms) and by the pytest plugin, where pytest
has paid for it already.
"""

from __future__ import annotations

from dataclasses import dataclass

from ds_gate.commands.flags import PYTEST

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import Any

    import pytest


@dataclass(frozen=True, slots=True)
class GateOptions:
    paths: tuple[Path | str, ...]  # CLI: the one path as given; pytest: quests or homes, ini ones relative to the ini file
    home: str | None = None
    require: bool = False
    source: str = "auto"  # auto, folders, git or both (sources.select.SOURCES)
    refs: tuple[str, ...] | None = None  # None: the source's default refs
    format: str = "text"
    cache: bool = True  # the record cache in the user's cache folder (--no-cache)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> GateOptions:
        """``candidates`` has no ``--require``/``--home`` (it never fails), so they default here."""
        return cls(
            paths=(args.path,),
            home=getattr(args, "home", None),
            require=getattr(args, "require", False),
            source=args.source,
            refs=tuple(args.refs) if args.refs else None,
            format=args.format,
            cache=not getattr(args, "no_cache", False),
        )

    @classmethod
    def from_pytest(cls, config: pytest.Config) -> GateOptions:
        """Options win over ini values (a command line overrides the project's defaults); ini
        paths are relative to the ini file (pytest's ``paths`` ini type resolves them)."""
        from pathlib import Path

        def option(field: str) -> Any:
            return config.getoption(f"ds_gate_{field}")

        def ini(field: str) -> Any:
            return config.getini(PYTEST[field]["ini"])

        require = option("require")
        return cls(
            paths=tuple(Path(p) for p in option("paths") or []) or tuple(Path(p) for p in ini("paths")),
            home=option("home") or ini("home") or None,
            require=bool(ini("require") if require is None else require),
            source=option("source") or ("git" if ini("source") else "auto"),
            refs=tuple(option("refs")) or None,
            cache=not option("no_cache"),
        )
