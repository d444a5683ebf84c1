"""The rules: each module checks one kind of thing and declares the ``Rule`` objects it
reports (records, coverage, cards, lineage, patch, finalization; ``reading`` holds what
the sources report). ``registry`` collects them all; nothing here imports on its own."""
