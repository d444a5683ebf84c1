"""``ds-gate demo``: the example quest, built with GitPython, and the stand-in DeepScientist service."""
