"""The ``ds-gate`` console script: a recall whose answer is kept (``kernel.answers``), and a push
that sends nothing final (``kernel.push``: pre-commit's ``ds-gate-pre-push`` runs this script), are
answered by the kernel before the command line loads, as ``python -m ds_gate`` does; anything else
is ``cli.main``'s."""

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
    if sys.argv[1:2] == ["pre-push"]:  # pre-commit's push hook (no input: the tips it judges, kernel.push)
        try:
            from ds_gate.kernel.push import hook_passes  # kernel.lazy.LAZY_PLACES

            if hook_passes(sys.argv[1:]):
                return 0
        except Exception:  # never in the way: the full path answers
            pass
    from ds_gate.cli.main import main as full  # kernel.lazy.LAZY_PLACES

    return full()
