"""Files shipped with ds-gate (schemas, hook scripts), wherever ds-gate is installed from."""

from __future__ import annotations

from pathlib import Path


def data_dir(name: str) -> Path:
    """``schemas`` or ``hooks``: inside the wheel (``ds_gate/_data``), or at the top of a checkout."""
    here = Path(__file__).resolve().parents[1]  # the ds_gate package
    packaged = here / "_data" / name
    return packaged if packaged.is_dir() else here.parent / name
