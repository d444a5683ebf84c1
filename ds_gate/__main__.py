"""``python -m ds_gate``, and the module the hooks import (``python -c '…; import ds_gate.__main__'``:
``-m`` would put the worktree first on sys.path). The hooks' exact calls, and a recall whose answer is
kept (``kernel.answers``), are first asked of the kernel, before argparse loads (ARCHITECTURE.md, "One
commit-hook call"); anything else goes on to ``cli.main``."""

import sys


def _hook_fast_path() -> bool:
    """True when this is a hook's call and the kernel answers "passes silently"."""
    args = sys.argv[1:]
    try:
        if args == ["commit-check"]:
            from ds_gate.kernel.checkpoint import (
                checkpoint_passes,  # kernel.lazy.LAZY_PLACES
            )

            return checkpoint_passes(".")
        if args[:1] == ["pre-push"]:
            from ds_gate.kernel.push import hook_passes  # kernel.lazy.LAZY_PLACES

            return hook_passes(args)  # git's input, read there, is put back for the full path
    except Exception:
        return False
    return False


def _kept_recall() -> int | None:
    """A recall's kept answer, printed, and its exit code, when nothing it read has changed; else None."""
    if sys.argv[1:2] != ["recall"]:
        return None
    try:
        from ds_gate.kernel.answers import served  # kernel.lazy.LAZY_PLACES

        return served(sys.argv[1:])
    except Exception:
        return None


if _hook_fast_path():
    sys.exit(0)
_kept = _kept_recall()
if _kept is not None:
    sys.exit(_kept)

from ds_gate.cli.main import main  # noqa: E402

sys.exit(main())
