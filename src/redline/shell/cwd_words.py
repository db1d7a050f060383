"""Words that name the working directory as bash and the kernel see it:
`$PWD`, `${PWD}`, `$(pwd)`, `` `pwd` ``, `~+`, `/proc/self/cwd`,
`/dev/fd/../cwd`; and the previous one (`~-`, `$OLDPWD`). A path spelled
through them is judged as the directory it names (`cd ~/.ssh && cat
$PWD/id_rsa` reads the key)."""

from __future__ import annotations

import re

from redline.shell import paths
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC, SimpleCommand, Word

_HERE = ("$PWD", "${PWD}", "$(pwd)", "$( pwd )", "$(pwd -P)", "$(pwd -L)", "`pwd`", "~+",
         "$(builtin pwd)", "$(command pwd)")  # fmt: skip
_BEFORE = ("$OLDPWD", "${OLDPWD}", "~-")
# `/proc/self/cwd` and the process's other names for itself.
_PROC_CWD = lazy_regex(
    r"\A/proc/(?:self|thread-self|\$\$|\$\{\$\}|\$BASHPID|\$\{BASHPID\}|\d+)(?:/task/[^/]+)?/cwd"
    r"(?=/|\Z)"
)


def spelled(raw: str, cwd: str | None, oldcwd: str | None) -> str | None:
    """The path `raw` (a word as written) names when it starts with a
    spelling of the working directory, or `None` when it does not (or that
    directory is not known)."""
    text = raw.replace('"', "").replace("'", "")
    if not text or text[0] not in "$`~/":
        return None
    for heads, base in ((_HERE, cwd), (_BEFORE, oldcwd)):
        for head in heads:
            if text == head or text.startswith(head + "/"):
                return base + text[len(head) :] if base else None
    if text.startswith(("/proc/", "/dev/fd/")):
        if text.startswith("/dev/fd/"):  # `/dev/fd` is `/proc/self/fd`
            text = "/proc/self/fd/" + text[len("/dev/fd/") :]
        normal = text if "/." not in text else _normal(text)
        match = _PROC_CWD.match(normal)
        if match:
            return cwd + normal[match.end() :] if cwd else None
    return None


def _normal(text: str) -> str:
    # `$$` is not a path part the normaliser knows: keep it as a plain name.
    return paths.normalize(text) or text


def through_cdpath(text: str, name: str) -> str:
    """`CDPATH=/a:/b cd name` goes to the first of `/a/name`, `/b/name`: the
    first absolute entry is taken (the others are judged no better)."""
    match = re.search(r"\bCDPATH=(['\"]?)([^\s;&|'\"]+)\1", text)
    if match:
        for entry in match.group(2).split(":"):
            if entry.startswith(("/", "~")):
                return entry.rstrip("/") + "/" + name
    return name


def tilde_dirs(cmd: SimpleCommand, cwd: str | None, oldcwd: str | None) -> SimpleCommand:
    """bash's tilde prefixes `~+` (`$PWD`) and `~-` (`$OLDPWD`), unquoted at a
    word's start: `cd / && rm -rf ~+/etc` removes `/etc`, not a user `+`'s home.
    An unknown directory is `.` for `~+` (where the command runs) and computed
    at run time for `~-`."""

    def word(w: Word) -> Word:
        head = w.raw[:2]
        if head not in ("~+", "~-") or w.raw[2:3] not in ("", "/") or not w.value.startswith(head):
            return w
        base = (cwd or ".") if head == "~+" else (oldcwd or DYNAMIC)
        return w._replace(value=base.rstrip("/") + w.value[2:] if w.value[2:] else base)

    return cmd._replace(
        words=tuple(word(w) for w in cmd.words),
        assignments=tuple(word(w) for w in cmd.assignments),
        redirects=tuple(
            r if r.target is None else r._replace(target=word(r.target)) for r in cmd.redirects
        ),
    )
