"""The one place ds-gate's version is written: the package metadata (hatch reads this file),
``ds-gate --version``, the MCP server, SARIF and the record cache's key all take it from here."""

__version__ = "0.1.0"
# The project's address, written once: SARIF's informationUri; pyproject's [project.urls] Homepage
# says the same (a test holds them equal).
HOMEPAGE = "https://github.com/ds-gate/ds-gate"
