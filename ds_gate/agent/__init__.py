"""The agent's side: the agent's calls as JSON-able dicts (``tools``), the MCP server that serves
them, and the distill skill ``install --agent`` writes (the ``ds-gate-distill`` folder)."""
