from .context import McpContext

__all__ = ["McpContext"]
