"""The pytest side of ds-gate: ``plugin`` (always loaded, imports little) and ``items`` (the gate, on demand)."""
