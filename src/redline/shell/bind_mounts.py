"""Containers as a path onto the host (issue 18, family 2).

A bind mount (`docker run -v ~:/h`, `--mount type=bind,src=/,dst=/host`)
makes a path in the container a path on the host: `rm -rf /h` inside deletes
the owner's home. The commands a container runs are first analysed as the
container sees them; `map_scopes` then rewrites each one whose words (or
working directory) fall under a mount into what it does on the host, so the
rules judge `rm -rf ~`, not `rm -rf /h`.
"""

from redline.fasttuple import NamedTuple
from redline.shell import paths
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC, Word


class Mount(NamedTuple):
    """A host path (normalised: absolute, `~...`, or relative to the call's
    directory) seen at `target` (absolute) in the container."""

    source: str
    target: str


class Mounts(NamedTuple):
    mounts: tuple[Mount, ...]
    # The container's working directory (`-w`), when given.
    workdir: str | None = None


# The spellings of the caller's directory in a mount's source (`"$PWD":/src`).
_HERE = ("$PWD", "${PWD}", "$(pwd)", "`pwd`", "${PWD:-.}")
_HOMES = ("$HOME", "${HOME}")
# Absolute paths inside a word: the whole word, or after `=`, `@` or `:`
# (`of=/h/x`, `f=@/aws/credentials`, `--file=/h/x`).
_PATHS_IN_WORD = lazy_regex(r"(?:\A|(?<=[=@:]))/[^\s:=@]*")


def source_path(text: str, cwd: str | None) -> str | None:
    """A mount's host side as a normalised path; `None` for a named volume or
    a source the judge cannot know."""
    text = text.replace('"', "").replace("'", "")
    for spelled, meaning in ((_HERE, "."), (_HOMES, "~")):
        for form in spelled:
            if text == form or text.startswith(form + "/"):
                text = meaning + text[len(form) :]
    if DYNAMIC in text or "$" in text or "`" in text:
        return None
    if not text.startswith(("/", "~", ".")):
        return None  # `cache:/root/.cache` is a named volume, not a host path
    source = paths.normalize(text, cwd)
    return None if source is None else source.rstrip("/") or "/"


def volume(word: Word, cwd: str | None) -> Mount | None:
    """`-v SRC:DST[:OPTS]` (the raw text is read when the source is `$PWD`)."""
    value = word.value
    if DYNAMIC in value.split(":", 1)[0]:
        raw = word.raw.replace('"', "").replace("'", "")
        value = raw[raw.index("=") + 1 :] if raw.startswith("-") and "=" in raw else raw
    parts = value.split(":")
    if len(parts) < 2:
        return None
    return _mount(source_path(parts[0], cwd), parts[1])


def mount_option(value: str, cwd: str | None) -> Mount | None:
    """`--mount type=bind,src=...,dst=...`; other types hold no host path."""
    fields = dict(part.partition("=")[::2] for part in value.split(","))
    if fields.get("type", "volume") != "bind":
        return None
    source = fields.get("source") or fields.get("src") or ""
    target = fields.get("target") or fields.get("destination") or fields.get("dst") or ""
    return _mount(source_path(source, cwd), target)


def _mount(source: str | None, target: str) -> Mount | None:
    target = target.replace('"', "").replace("'", "")
    if source is None or not target.startswith("/"):
        return None
    return Mount(source, paths.normalize(target) or target)


def run_mounts(argv: tuple[Word, ...], start: int, end: int, cwd: str | None) -> Mounts | None:
    """The bind mounts and working directory of `docker run`'s options in
    `argv[start:end]`; `None` when there is no bind mount."""
    mounts: list[Mount] = []
    workdir: str | None = None
    k = start
    while k < end:
        word = argv[k]
        option, eq, attached = word.value.partition("=")
        value = attached if eq else (argv[k + 1].value if k + 1 < end else "")
        target = word if eq else (argv[k + 1] if k + 1 < end else word)
        if option in ("-v", "--volume"):
            found = volume(word._replace(value=attached) if eq else target, cwd)
            if found is not None:
                mounts.append(found)
        elif option == "--mount":
            found = mount_option(value, cwd)
            if found is not None:
                mounts.append(found)
        elif option in ("-w", "--workdir") and value.startswith("/"):
            workdir = paths.normalize(value) or value
        k += 1
    return Mounts(tuple(mounts), workdir) if mounts else None


def host_side(path: str, mounts: tuple[Mount, ...]) -> tuple[str, ...]:
    """The host paths a container path reaches: under a mount, the host path
    it is; above one (`/` above `/h`), every mount under it whole."""
    under = host_path(path, mounts)
    if under is not None:
        return (under,)
    return tuple(m.source for m in mounts if path == "/" or paths.is_under(m.target, path))


def host_path(path: str, mounts: tuple[Mount, ...]) -> str | None:
    """The host path a container path at or under a mount is."""
    best: Mount | None = None
    for mount in mounts:
        target = mount.target
        under = path == target or paths.is_under(path, target)
        if under and (best is None or len(target) > len(best.target)):
            best = mount
    if best is None:
        return None
    rest = path[len(best.target) :].lstrip("/")
    if not rest:
        return best.source
    return rest if best.source == "." else best.source.rstrip("/") + "/" + rest


def _map_word(word: Word, mounts: tuple[Mount, ...], cwd: str | None) -> tuple[Word, ...]:
    value = word.value
    if DYNAMIC in value or ("/" not in value and cwd is None):
        return (word,)
    if not value.startswith(("/", "-")) and "=" not in value and cwd is not None:
        value = cwd.rstrip("/") + "/" + value  # relative: in the container's directory
    found = [(m.start(), m.end(), m.group()) for m in _PATHS_IN_WORD.finditer(value)]
    if not found:
        return (word,)
    start, end, path = found[0]
    hosts = host_side(paths.normalize(path) or path, mounts)
    if not hosts:
        return (word,)
    return tuple(word._replace(value=value[:start] + h + value[end:]) for h in hosts)


def map_scopes(invocations: list[Invocation], scopes: list[tuple[int, int, Mounts]]) -> None:
    """Replace each invocation a container runs (in `invocations[start:end]`)
    that reaches a mounted path by what it does on the host."""
    for start, end, table in scopes:
        cwd = table.workdir
        mapped_ones: set[int] = set()
        for k in range(start, min(end, len(invocations))):
            inv = invocations[k]
            if not inv.remote:
                continue
            if inv.name == "cd" and len(inv.argv) == 2:  # a `cd` inside the container's shell
                cwd = paths.normalize(inv.argv[1].value, cwd or "/")
                continue
            words = tuple(w for word in inv.argv[1:] for w in _map_word(word, table.mounts, cwd))
            host_cwd = host_path(cwd, table.mounts) if cwd else None
            # What reads a mapped command's output sends it from this host's network.
            fed = any(k in mapped_ones for k in inv.upstream)
            if words == inv.argv[1:] and host_cwd is None and not fed:
                continue
            mapped_ones.add(k)
            if host_cwd is not None and not host_cwd.startswith(("/", "~")):
                host_cwd = inv.cwd  # the caller's own directory, as far as it is known
            mapped = Invocation(
                inv.name, (inv.argv[0], *words), inv.redirects, inv.span, inv.index,
                (*inv.via, "bind mount"), inv.depth, False, inv.appended_args, inv.upstream,
                inv.parent, inv.stdin_text, host_cwd,
                inv.background,
            )  # fmt: skip
            mapped.oldcwd = inv.oldcwd
            invocations[k] = mapped
