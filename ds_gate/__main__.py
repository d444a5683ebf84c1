"""``python -m ds_gate``, and the module the hooks import (``python -c '…; import
ds_gate.__main__' commit-check``: ``-m`` would put the worktree first on sys.path).

The hooks run on every commit and every push, so their exact calls (``commit-check``;
``pre-push`` with git's remote and URL) are first asked of the kernel (``kernel.checkpoint``,
``kernel.push``), before argparse and the command table load: a commit staging nothing the gate
looks at (beyond records that are certainly fine), or a push sending nothing final, passes
there. Anything else, or an error, goes on to the full command line, which decides and reports
exactly as ``ds-gate`` does."""

import io
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
        if args[:1] == ["pre-push"] and len(args) <= 3 and not any(a.startswith("-") for a in args[1:]):
            from ds_gate.kernel.push import (  # kernel.lazy.LAZY_PLACES
                push_passes,
                read_stdin,
            )

            pushed = read_stdin()
            sys.stdin = io.StringIO(pushed)  # git gives its input once: the full path reads it again here
            return push_passes(".", pushed)
    except Exception:
        return False
    return False


if _hook_fast_path():
    sys.exit(0)

from ds_gate.cli.main import main  # noqa: E402

sys.exit(main())
