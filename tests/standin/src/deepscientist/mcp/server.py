"""Stand-in for main's ``deepscientist.mcp.server``: the built-in servers' builders and ``main()``.

Shaped as main's: ``build_memory_server(context)`` / ``build_artifact_server(context)`` return
the SDK's decorator-style server whose tools are closures over the services, and ``main()``
picks one by ``--namespace`` (runners start ``python -m deepscientist.mcp.server``).
"""

import argparse
from typing import Any

try:  # main pins mcp<2 (FastMCP); the SDK 2.x line calls it MCPServer
    from mcp.server.fastmcp import FastMCP
except ModuleNotFoundError:
    from mcp.server.mcpserver import MCPServer as FastMCP

from ..artifact import ArtifactService
from ..memory import MemoryService
from .context import McpContext


def build_memory_server(context: McpContext) -> FastMCP:
    service = MemoryService(context.home)
    server = FastMCP("memory", instructions="Quest-aware DeepScientist memory namespace.", log_level="ERROR")

    @server.tool(name="write", description="Write a Markdown memory card with YAML frontmatter.")
    def write(
        kind: str,
        title: str,
        body: str = "",
        markdown: str | None = None,
        scope: str = "quest",
        tags: list[str] | str | None = None,
        metadata: dict[str, Any] | None = None,
        comment: str | dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        quest_root = context.require_quest_root() if scope == "quest" else None
        return service.write_card(
            scope=scope,
            kind=kind,
            title=title,
            body=body,
            markdown=markdown,
            quest_root=quest_root,
            quest_id=context.quest_id,
            tags=tags,
            metadata=metadata,
        )

    @server.tool(name="list_recent", description="List the most recently updated memory cards.")
    def list_recent(
        scope: str = "quest", limit: int = 10, kind: str | None = None, comment: str | dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return {"ok": True, "count": 0, "items": []}

    @server.tool(name="promote_to_global", description="Promote a quest memory card into global memory.")
    def promote_to_global(
        card_id: str | None = None, path: str | None = None, comment: str | dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return service.promote_to_global(card_id=card_id, path=path, quest_root=context.require_quest_root())

    return server


def build_artifact_server(context: McpContext) -> FastMCP:
    service = ArtifactService(context.home)
    server = FastMCP("artifact", instructions="Quest-aware DeepScientist artifact namespace.", log_level="ERROR")

    @server.tool(name="record", description="Write a structured artifact record under the current quest.")
    def record(payload: dict[str, Any], comment: str | dict[str, Any] | None = None) -> dict[str, Any]:
        return service.record(context.require_quest_root(), dict(payload), workspace_root=context.worktree_root)

    @server.tool(name="submit_paper_bundle", description="Persist a paper bundle manifest.")
    def submit_paper_bundle(
        title: str | None = None,
        summary: str = "",
        outline_path: str | None = None,
        package_type: str = "draft_checkpoint",
        comment: str | dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        try:
            result = service.submit_paper_bundle(
                context.require_quest_root(),
                title=title,
                summary=summary,
                outline_path=outline_path,
                package_type=package_type,
            )
        except (ValueError, FileNotFoundError, RuntimeError) as exc:
            return {"ok": False, "tool_name": "artifact.submit_paper_bundle", "message": str(exc)}
        # as main's compact_paper_write_result: the service's answer is cut down to a few fields
        manifest = result.get("manifest") if isinstance(result.get("manifest"), dict) else {}
        return {
            "ok": bool(result.get("ok")),
            "tool_name": "submit_paper_bundle",
            "package_type": manifest.get("package_type"),
            "title": manifest.get("title"),
            "paths": {"manifest_path": result.get("manifest_path")},
            "hint": "Full paper artifact content was written to files.",
        }

    @server.tool(name="interact", description="Send a structured user-facing interaction.")
    def interact(
        kind: str = "progress",
        message: str = "",
        reply_mode: str | None = None,
        reply_schema: dict[str, Any] | None = None,
        comment: str | dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return service.interact(
            context.require_quest_root(), kind=kind, message=message, reply_mode=reply_mode, reply_schema=reply_schema
        )

    @server.tool(name="complete_quest", description="Mark the quest as completed after explicit user approval.")
    def complete_quest(summary: str = "", comment: str | dict[str, Any] | None = None) -> dict[str, Any]:
        return service.complete_quest(context.require_quest_root(), summary=summary)

    return server


def build_bash_exec_server(context: McpContext) -> FastMCP:
    return FastMCP("bash_exec", instructions="Stand-in: no tools.", log_level="ERROR")


def main() -> int:
    parser = argparse.ArgumentParser(description="DeepScientist built-in MCP server (stand-in)")
    parser.add_argument("--namespace", choices=("memory", "artifact", "bash_exec"), required=True)
    args = parser.parse_args()
    context = McpContext.from_env()
    if args.namespace == "memory":
        build_memory_server(context).run("stdio")
    elif args.namespace == "artifact":
        build_artifact_server(context).run("stdio")
    else:
        build_bash_exec_server(context).run("stdio")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
