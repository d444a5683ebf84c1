"""The hooks' adapter: ``install`` writes the git hooks, ``doctor`` says whether they are in place."""
