"""Reporters turn a ``Report`` into text; ``registry`` names them (``--format``)."""
