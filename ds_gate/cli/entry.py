"""The ``ds-gate`` console script: a recall whose answer is kept (``kernel.answers``) is answered by
the kernel before the command line loads, as ``python -m ds_gate`` does; anything else is ``cli.main``'s.
"""

from __future__ import annotations

import sys


def main() -> int:
    if sys.argv[1:2] == ["recall"]:
        try:
            from ds_gate.kernel.answers import served  # kernel.lazy.LAZY_PLACES

            code = served(sys.argv[1:])
        except Exception:  # never in the way: the full path answers
            code = None
        if code is not None:
            return code
    from ds_gate.cli.main import main as full  # kernel.lazy.LAZY_PLACES

    return full()
