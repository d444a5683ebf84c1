"""The core that answers questions about quests: ``gate.evaluate`` (one engine for every
gate verdict), the loader that builds a ``Quest`` once, the memory and lineage checks, the
commit and push verdicts, ``validate`` and ``recent``. Adapters call it; it prints nothing."""
