"""The command line: ``main`` parses argv, ``table`` names the commands, one module a command."""
