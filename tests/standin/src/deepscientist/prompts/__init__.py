"""Stand-in for main's ``deepscientist.prompts`` (its ``builder`` is ds_gate/demo/builder.py)."""
