"""Checks are pure: they take the model and return findings."""
