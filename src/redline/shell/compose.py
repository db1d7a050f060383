"""Compose files read as the containers they start (issue 18, family 2).

`docker compose -f - up <<EOF ... EOF` starts the services its YAML
describes; each is spelled back as a `docker run` line
(`redline.shell.container_lines`) and analysed as one, so a service that
mounts the home and deletes it is judged as `docker run -v ~:/h img rm -rf
/h`. Parsed with a YAML parser, never grepped; a text that does not parse
starts nothing (compose refuses it too).
"""

from redline.shell.container_lines import Container, cli_words, command_text, run_line, strings

COMPOSE_PROGRAMS = frozenset({"docker-compose", "podman-compose"})
# The verbs that start containers.
STARTS = frozenset({"up", "run", "create", "start", "restart"})
# Options of `compose` itself that take a value.
_VALUED = frozenset({"-f", "--file", "-p", "--project-name", "--project-directory", "--env-file",
                     "--profile", "--ansi", "--parallel", "--progress"})  # fmt: skip


def compose_words(values: tuple[str, ...]) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """`(files, verb, the words after the verb)` of compose's arguments."""
    read = cli_words(values, _VALUED, stop=True)
    return read.files, read.operands[0] if read.operands else "", read.rest


def compose_call(name: str, values: tuple[str, ...]) -> tuple[str, ...] | None:
    """The arguments after `compose` (`docker compose ARGS`, `docker-compose ARGS`)."""
    if name in COMPOSE_PROGRAMS:
        return values
    if name not in ("docker", "podman", "nerdctl"):
        return None
    for k, value in enumerate(values[:6]):
        if value == "compose":
            return values[k + 1 :]
        if not value.startswith("-") and values[k - 1 : k] not in (
            ("-H",),
            ("-c",),
            ("--context",),
            ("--host",),
        ):
            return None
    return None


def run_lines(text: str, verb: str = "up", rest: tuple[str, ...] = ()) -> str:
    """The `docker run` lines of the services a compose text starts."""
    services = _services(text)
    if verb == "run":
        operands = [w for w in rest if not w.startswith("-")]
        if operands and operands[0] in services:
            service = services[operands[0]]
            override = tuple(rest[rest.index(operands[0]) + 1 :])
            return run_line(_container(service, override))
        return ""
    return "\n".join(run_line(_container(s)) for s in services.values())


def _services(text: str) -> dict[str, dict[str, object]]:
    import yaml  # here, not at the top: only a compose text needs it

    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    services = document.get("services") if isinstance(document, dict) else None
    if not isinstance(services, dict):
        return {}
    return {str(k): v for k, v in services.items() if isinstance(v, dict)}


def _container(service: dict[str, object], override: tuple[str, ...] = ()) -> Container:
    binds: list[tuple[str, str]] = []
    volumes = service.get("volumes")
    for entry in volumes if isinstance(volumes, list) else ():
        if isinstance(entry, str) and ":" in entry:
            source, _, target = entry.partition(":")
            binds.append((source, target.split(":", 1)[0]))
        elif isinstance(entry, dict) and entry.get("type") == "bind":
            binds.append((str(entry.get("source", "")), str(entry.get("target", ""))))
    command = override or service.get("command")
    text = command_text(service.get("entrypoint"), command)
    workdir = service.get("working_dir")
    return Container(
        image=str(service.get("image") or "image"),
        binds=tuple(binds),
        privileged=service.get("privileged") is True,
        host_pid=service.get("pid") == "host",
        host_network=service.get("network_mode") == "host",
        caps=strings(service.get("cap_add")),
        workdir=workdir if isinstance(workdir, str) else None,
        text=text or None,
    )
