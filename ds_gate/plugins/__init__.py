"""Plugins: the hook specifications (``hookspecs``), the one PluginManager (``manager``) and
ds-gate's own rules as a plugin (``builtin``)."""
