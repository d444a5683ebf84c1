"""The commit hook's whole fast path, standard library only: DeepScientist's layout and vocabulary,
the bounded file read, the safe git door, JSON as DeepScientist reads it, the accept-only schema check. Every layer
above builds on these functions; ``tests/acceptance/test_kernel_budget.py`` keeps the import budget."""
