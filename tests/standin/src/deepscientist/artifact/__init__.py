"""As main's: ``ArtifactService`` is imported lazily, on first use."""

from typing import Any

__all__ = ["ArtifactService"]


def __getattr__(name: str) -> Any:
    if name == "ArtifactService":
        from .service import ArtifactService

        return ArtifactService
    raise AttributeError(name)
