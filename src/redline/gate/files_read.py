"""Files a command reads to decide what it does, judged with it (issue 18):
the compose files `docker compose up` starts (`compose_files`) and the
Dockerfiles `docker build` builds (`dockerfiles`)."""

from __future__ import annotations

from redline.decision import RuleHit
from redline.shell.analysis import Analysis

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.gate.never_run import Guard

_CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl", "buildah", "docker-compose",
                              "podman-compose"})  # fmt: skip


def with_file_hits(
    hits: tuple[RuleHit, ...], analysis: Analysis, guard: Guard
) -> tuple[RuleHit, ...]:
    """`hits` with those of the files the command's container tools read,
    strictest first."""
    if not any(inv.name in _CONTAINER_TOOLS for inv in analysis.invocations):
        return hits
    # here, not at the top: a hook judging `ls` never loads them
    from redline.gate.compose_files import compose_hits
    from redline.gate.dockerfiles import dockerfile_hits

    home = guard.places.home
    read = (
        *compose_hits(analysis, guard.world, home),
        *dockerfile_hits(analysis, guard.world, home),
    )
    if not read:
        return hits
    return tuple(sorted((*hits, *read), key=lambda h: -h.severity))
