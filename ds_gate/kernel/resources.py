"""Files shipped with ds-gate (schemas, hook scripts), wherever ds-gate is installed from.

Plain ``os.path``: the commit hook loads the record schemas from here on every commit
that stages a record, and does not import ``pathlib`` there (bench/RESULTS.md, import costs).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def data_path(name: str) -> str:
    """``schemas`` or ``hooks``: inside the wheel (``ds_gate/_data``), or at the top of a checkout."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the ds_gate package
    packaged = os.path.join(here, "_data", name)
    return packaged if os.path.isdir(packaged) else os.path.join(os.path.dirname(here), name)


def data_dir(name: str) -> Path:
    """``data_path`` as a ``Path``."""
    from pathlib import Path

    return Path(data_path(name))
