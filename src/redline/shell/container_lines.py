"""A container described as data (a compose service, a pod's container)
spelled back as the `docker run` line that does the same, so the analysis
judges it as it judges a `docker run` typed out: its mounts, its host
namespaces, and the command it runs inside."""

from redline.fasttuple import NamedTuple
from redline.shell.lazy_regex import lazy_regex

# Words that need no quoting; `~` stays bare so that it means the home.
_PLAIN = lazy_regex(r"[\w@%+=:,./~-]+\Z")
_HOME_FORMS = ("${HOME}", "$HOME")
_HERE_FORMS = ("${PWD}", "$PWD")


class Container(NamedTuple):
    image: str = "image"
    # Host path (as written in the description) and container path.
    binds: tuple[tuple[str, str], ...] = ()
    privileged: bool = False
    host_pid: bool = False
    host_network: bool = False
    caps: tuple[str, ...] = ()
    workdir: str | None = None
    # The command it runs, as shell text (words quoted).
    text: str | None = None


def quote(word: str) -> str:
    if _PLAIN.match(word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def host_source(text: str) -> str:
    """`$HOME/x` as `~/x`, `${PWD}` as `.`: what compose interpolates itself."""
    for forms, meaning in ((_HOME_FORMS, "~"), (_HERE_FORMS, ".")):
        for form in forms:
            if text == form or text.startswith(form + "/"):
                return meaning + text[len(form) :]
    return text


def run_line(container: Container) -> str:
    parts = ["docker", "run"]
    if container.privileged:
        parts.append("--privileged")
    if container.host_pid:
        parts.append("--pid=host")
    if container.host_network:
        parts.append("--net=host")
    parts += [f"--cap-add={quote(cap)}" for cap in container.caps]
    for source, target in container.binds:
        parts += ["-v", quote(host_source(source) + ":" + target)]
    if container.workdir:
        parts += ["-w", quote(container.workdir)]
    parts.append(quote(container.image or "image"))
    if container.text:
        parts.append(container.text)
    return " ".join(parts)


def command_text(*values: object) -> str:
    """Commands given as strings or lists of words, as one shell text."""
    texts = []
    for value in values:
        if isinstance(value, str):
            texts.append(value)
        else:
            texts.append(" ".join(quote(w) for w in strings(value)))
    return " ".join(t for t in texts if t)


class CliWords(NamedTuple):
    """A container CLI's arguments: the `-f FILE` values, the operands, and
    (with `stop`) the words after the first operand."""

    files: tuple[str, ...]
    operands: tuple[str, ...]
    rest: tuple[str, ...] = ()


def cli_words(values: tuple[str, ...], valued: frozenset[str], stop: bool = False) -> CliWords:
    """Read options that take a value (`-f X`, `--file=X`) apart from operands."""
    files: list[str] = []
    operands: list[str] = []
    k = 0
    while k < len(values):
        value = values[k]
        option, eq, attached = value.partition("=")
        if option in valued:
            given = attached if eq else (values[k + 1] if k + 1 < len(values) else "")
            if option in ("-f", "--file"):
                files.append(given)
            k += 1 if eq else 2
            continue
        if not value.startswith("-"):
            operands.append(value)
            if stop:
                return CliWords(tuple(files), tuple(operands), values[k + 1 :])
        k += 1
    return CliWords(tuple(files), tuple(operands))


def strings(value: object) -> tuple[str, ...]:
    """A list of scalars as strings; anything else as nothing."""
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value if isinstance(v, (str, int, float)))
    return ()
