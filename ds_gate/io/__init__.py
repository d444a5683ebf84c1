"""Bytes and text in the formats ds-gate reads: git (plain subprocess calls, safe for a
read-only tool), JSON as DeepScientist reads it, with pointers and lines, safe YAML with lines, the shipped
JSON Schemas (files, a fast accept path, an explainer). Nothing here knows a rule."""
