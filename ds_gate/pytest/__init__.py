"""The pytest side of ds-gate: ``plugin`` (options, ini, fixtures; always loaded) and ``items`` (the gate, on demand).

Imports nothing, so loading the plugin by its entry point costs only the plugin itself.
Inside this package ``import pytest`` is absolute and finds pytest, not the package.
"""
