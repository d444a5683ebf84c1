"""``python -m ds_gate``, and the module the hooks import (``python -c '…; import
ds_gate.__main__' commit-check``: ``-m`` would put the worktree first on sys.path). The commit
hook runs ``commit-check`` on every commit, so that exact call skips argparse and the command
table: the hook's verdict is computed directly, and only a commit that stages something the
gate looks at (beyond records that are certainly fine), or an error, goes on to the full
command line (which then reports it exactly as ``ds-gate`` does)."""

import sys


def _checkpoint_fast_path() -> bool:
    """True when this is the hook and the commit stages nothing the gate looks at, or only
    records that are certainly fine (``kernel.checkpoint``)."""
    if sys.argv[1:] != ["commit-check"]:
        return False
    try:
        from ds_gate.kernel.checkpoint import (
            checkpoint_passes,  # kernel.lazy.LAZY_PLACES
        )

        return checkpoint_passes(".")
    except Exception:  # noqa: BLE001 - any doubt: the full command line decides and reports
        return False


if _checkpoint_fast_path():
    sys.exit(0)

from ds_gate.cli.main import main  # noqa: E402

sys.exit(main())
