"""Stand-in for DeepScientist main's package (ds-gate's integration tests): version from metadata."""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

try:
    __version__ = _version("deepscientist")
except PackageNotFoundError:  # pragma: no cover
    __version__ = "0"
