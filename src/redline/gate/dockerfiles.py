"""Dockerfiles on disk read for the secrets they bake in (issue 18, family
1): `docker build .` builds what `./Dockerfile` says, and a `COPY .env` or
`COPY id_rsa` there puts a credential into every copy of the image. The gate
reads the Dockerfile a build names (or the context's `Dockerfile` /
`Containerfile`), a small regular file, through its `World`."""

from __future__ import annotations

from redline.decision import RuleHit
from redline.gate.compose_files import MAX_FILE, absolute
from redline.gate.world import World
from redline.rules.catalog import resolve
from redline.rules.secret_copies import dockerfile_secrets
from redline.shell.analysis import Analysis
from redline.shell.container_lines import cli_words
from redline.shell.invocation import Invocation

_BUILDERS = ("docker", "podman", "nerdctl", "buildah")
# `build` options that take a value (the context is the operand left over).
_VALUED = frozenset({"-t", "--tag", "-f", "--file", "--build-arg", "--target", "--platform",
                     "--secret", "--label", "--cache-from", "--cache-to", "--network",
                     "--progress", "-o", "--output", "--ssh", "--iidfile", "--build-context",
                     "--add-host", "--builder", "-m", "--memory", "--shm-size", "--ulimit",
                     "--isolation", "--cgroup-parent", "--metadata-file"})  # fmt: skip


def build_files(inv: Invocation) -> tuple[str, ...]:
    """The Dockerfiles a build reads: `-f FILE`, else the context's own."""
    values = inv.values
    words = [v for v in values if not v.startswith("-")]
    if words[:1] in (["buildx"], ["image"], ["builder"]):
        words = words[1:]
    if words[:1] not in (["build"], ["bud"]):
        return ()
    read = cli_words(values[values.index(words[0]) + 1 :], _VALUED)
    named, context = read.files, read.operands
    if named:
        return tuple(n for n in named if n not in ("-", "/dev/stdin"))
    base = (context[-1] if context else ".").rstrip("/") or "/"
    if "://" in base or base == "-":
        return ()
    return (base + "/Dockerfile", base + "/Containerfile")


def dockerfile_hits(analysis: Analysis, world: World, home: str) -> tuple[RuleHit, ...]:
    rule = resolve("secret.into-image")
    if rule is None:
        return ()
    found: list[RuleHit] = []
    for inv in analysis.invocations:
        if inv.name not in _BUILDERS:
            continue
        for name in build_files(inv):
            path = absolute(name, inv.cwd, home)
            text = None if path is None else world.read_script(path)
            if not text or len(text) >= MAX_FILE or not dockerfile_secrets(text):
                continue
            where = f"{rule.description} (in `{name}`, read from disk)"
            found.append(
                RuleHit(rule.id, where, rule.severity, rule.category, inv.span, rule.repair)
            )
            break
    return tuple(found)
