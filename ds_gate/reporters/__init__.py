"""Reporters turn a ``Report`` into text; nothing else in ds-gate formats output. ``registry``
names them (``--format``); each is a small class with ``render(report) -> str``."""
