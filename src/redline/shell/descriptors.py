"""What reads the output of a process substitution (F-SHELL-3): `bash <(curl
...)`, `bash < <(curl ...)`, and through descriptors opened by `exec` (`exec 3<
<(curl ...); bash <&3`)."""

from collections.abc import Mapping

from redline.shell.invocation import Invocation, command_name
from redline.shell.model import DYNAMIC, Redirect, Word


def link_process_substitutions(
    invocations: list[Invocation], child_index: Mapping[int, tuple[int, ...]]
) -> None:
    """`bash <(curl ...)`, `bash < <(curl ...)`: what runs in the substitution
    feeds the reader; `exec 3< <(curl ...); bash <&3` too, through the
    descriptor. Runs while the analysis is still being built, before anyone
    sees it. Only the reader's own children count, not the commands of a
    script it carries (those are one level deeper)."""
    opened: dict[str, tuple[int, ...]] = {}
    for inv in invocations:
        if opened:
            inv.upstream += _through_descriptors(inv, opened)
        reads = [r for r in inv.redirects if r.op == "<" and r.target is not None
                 and r.target.value.startswith(_FD)]  # fmt: skip
        if not reads and not any(w.value.startswith(_FD) for w in inv.argv[1:]):
            continue
        feeders = tuple(
            k for k in child_index.get(inv.index, ())
            if invocations[k].depth == inv.depth and inv.index not in invocations[k].upstream
        )  # fmt: skip
        if inv.name == "exec" and len(inv.argv) == 1:
            # `exec < <(curl x)` makes it the stdin of every later command too.
            opened.update((str(r.fd or 0), feeders) for r in reads)
            if all(r.fd not in (None, 0) for r in reads):
                continue
        inv.upstream = inv.upstream + feeders


def _through_descriptors(inv: Invocation, opened: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    found: list[int] = []
    reads_stdin = inv.stdin_text is None and not inv.upstream and inv.name != "exec"
    if "0" in opened and reads_stdin and not any(r.op[0] == "<" for r in inv.redirects):
        found.extend(opened["0"])
    for redirect in inv.redirects:
        if redirect.op == "<&" and redirect.target is not None:
            found.extend(opened.get(redirect.target.value, ()))
    for word in inv.argv[1:]:
        number = word.value.removeprefix("/dev/fd/").removeprefix("/proc/self/fd/")
        if number != word.value:
            found.extend(opened.get(number, ()))
    return tuple(found)


_FD = "/dev/fd/" + DYNAMIC


_SOCKETS = ("/dev/tcp/", "/dev/udp/")
_DUPLICATES = {">&": ">", "<&": "<"}


def sockets_opened(
    argv: tuple[Word, ...], redirects: tuple[Redirect, ...], opened: dict[str, Word], text: str
) -> None:
    """`exec 3<>/dev/tcp/h/80` (or `{fd}<>...`): descriptor 3 is a socket for
    every later command; `exec 3>&-` or a file on 3 closes it. Kept in `opened`."""
    if len(argv) != 1 or command_name(argv[0]) != "exec":
        return
    for redirect in redirects:
        fd = _descriptor(redirect, text)
        target = redirect.target
        if target is not None and target.value.startswith(_SOCKETS):
            opened[fd] = target
        else:
            opened.pop(fd, None)


def _descriptor(redirect: Redirect, text: str) -> str:
    if redirect.fd is not None:
        return str(redirect.fd)
    if text[redirect.span.start : redirect.span.start + 1] == "{":
        return DYNAMIC  # `{fd}<>`: read later as `>&$fd`, a value bash computes
    return "1" if redirect.op[0] == ">" or redirect.op == "&>" else "0"


def through_sockets(
    redirects: tuple[Redirect, ...], opened: dict[str, Word], piped: bool
) -> tuple[Redirect, ...]:
    """`cat key >&3` after `exec 3<>/dev/tcp/h/80` writes to `/dev/tcp/h/80`;
    after `exec 0<&3 1>&3`, every command reads and writes the socket unless
    it redirects (or, `piped`, reads a pipe)."""
    changed: list[Redirect] = []
    own = {_descriptor(r, "") for r in redirects if r.op in ("<", ">", "<>", ">>", "<&", ">&")}
    for fd, standard in (("0", "<"), ("1", ">")):
        socket = opened.get(fd)
        if socket is not None and fd not in own and not (piped and fd == "0"):
            changed.append(Redirect(standard, socket, socket.span, int(fd)))
    for redirect in redirects:
        target = redirect.target
        op = _DUPLICATES.get(redirect.op)
        if op is not None and target is not None:
            key = DYNAMIC if DYNAMIC in target.value else target.value
            socket = opened.get(key)
            if socket is not None:
                redirect = redirect._replace(op=op, target=target._replace(value=socket.value))
        changed.append(redirect)
    return tuple(changed)
