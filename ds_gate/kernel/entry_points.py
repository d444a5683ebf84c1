"""Whether any ``ds_gate`` plugin is installed, answered without importlib.metadata.

The commit hook's fast path stands aside when a plugin is installed (a plugin's rules may look
at anything), and ``plugins.manager`` builds pluggy's manager only then. A scan of the
``*.dist-info/entry_points.txt`` files on ``sys.path`` gives the same answer as
``importlib.metadata`` for installed distributions, without loading it.
"""

from __future__ import annotations

import os
import sys

GROUP = "ds_gate"  # the entry-point group plugins declare


_ANSWER: list[bool] = []  # asked once per process (functools.cache would load collections on the hook's path)


def any_installed() -> bool:
    """True when some distribution on ``sys.path`` declares a ``[ds_gate]`` entry point."""
    if not _ANSWER:
        _ANSWER.append(_scan())
    return _ANSWER[0]


def _scan() -> bool:
    for folder in sys.path:
        try:
            entries = [e.name for e in os.scandir(folder or ".") if e.name.endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue
        for name in entries:
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"), encoding="utf-8") as f:
                    if f"[{GROUP}]" in f.read():
                        return True
            except OSError:
                continue
    return False
