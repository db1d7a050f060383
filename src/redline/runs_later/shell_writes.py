"""What a command line writes into a file that runs later, as text the judge
can read: a redirect or `tee` of static text (`cat > Makefile <<'EOF'`,
`echo CMD >> .git/hooks/pre-commit`), the text `sed -i` puts in, a script set
by `npm pkg set scripts.X=CMD`, and the table fed to `crontab -`. A folder
named by `git config core.hooksPath DIR` earlier in the line holds hooks.
"""

from __future__ import annotations

from redline.fasttuple import NamedTuple
from redline.shell.carriers import static_output
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.shell.analysis import Analysis

# Programs whose invocations may write such a text.
WRITERS = frozenset({"echo", "printf", "cat", "tee", "sed", "npm", "pnpm", "crontab", "base64",
                     "basenc", "rev", "xxd"})  # fmt: skip
# `s/OLD/NEW/`, `a\TEXT`, `i TEXT`, `c\TEXT`, `$a\TEXT`: the text sed puts in.
_SED_TEXT = lazy_regex(r"(?:^|;)\s*(?:\$|\d+|/[^/]*/)?\s*[aic]\\?\s*(.+)$")


class Written(NamedTuple):
    """A text put into `path`. `whole` is false when it is a piece of the
    file (a line `sed` puts in, one script): read line by line then."""

    path: str
    text: str
    whole: bool = True


def written(inv: Invocation, analysis: Analysis) -> list[Written]:
    """Texts `inv` writes into files, each with the path as written."""
    found: list[Written] = []
    # `>`, `>>`, `&>`, `>&FILE`, `N<>FILE` (`Redirect.writes`)
    targets = [r.target.value for r in inv.redirects if r.target is not None and r.writes]
    if targets:
        text = static_output(inv)
        if text is not None and inv.name == "printf":
            text = text.replace("\\t", "\t")  # a recipe's tab
        appends = {
            r.target.value
            for r in inv.redirects
            if r.target is not None and (">>" in r.op or r.op == "<>")  # `<>`: in place
        }
        if text is not None:  # appended text is a piece of the file (read line by line too)
            found.extend(Written(t, text, t not in appends) for t in targets)
    name = inv.name
    if name == "tee" and inv.stdin_text is not None:
        found.extend(Written(w.value, inv.stdin_text) for w in inv.options.operands)
    elif name == "sed":
        found.extend(_sed(inv))
    elif name in ("npm", "pnpm"):
        found.extend(_npm_pkg_set(inv))
    elif name == "crontab":
        found.extend(_crontab(inv, analysis))
    hooks = hook_folders(analysis) if found else ()
    if hooks:
        found = [w._replace(path=_as_hook(w.path, hooks)) for w in found]
    return [w for w in found if DYNAMIC not in w.path]


def _sed(inv: Invocation) -> list[Written]:
    values = inv.values
    if not any(v == "-i" or v.startswith(("-i", "--in-place")) for v in values):
        return []
    operands = [w.value for w in inv.options.operands]
    scripts = [values[k + 1] for k, v in enumerate(values[:-1]) if v in ("-e", "--expression")]
    if not scripts and operands:
        scripts, operands = operands[:1], operands[1:]
    pieces: list[str] = []
    for script in scripts:
        if script[:1] == "s" and len(script) > 3:
            parts = script[2:].split(script[1])
            if len(parts) >= 2:
                pieces.append(parts[1].replace("\\n", "\n").replace("\\t", "\t"))
        else:
            match = _SED_TEXT.search(script)
            if match:
                pieces.append(match.group(1).replace("\\t", "\t").replace("\\n", "\n"))
    text = "\n".join(p.lstrip("\t") for p in pieces)
    return [Written(path, text, False) for path in operands] if text.strip() else []


def _npm_pkg_set(inv: Invocation) -> list[Written]:
    """`npm pkg set scripts.postinstall=CMD`: CMD is a script of `package.json`;
    `npm config set KEY=VALUE` (or `KEY VALUE`) a line of an `.npmrc`."""
    values = inv.values
    if values[:2] == ("config", "set"):
        pairs = [v for v in values[2:] if not v.startswith("-")]
        lines = [p if "=" in p else f"{p}={pairs[k + 1]}" for k, p in enumerate(pairs[:-1])]
        lines += [pairs[-1]] if pairs and "=" in pairs[-1] else []
        text = "\n".join(line for line in lines if "=" in line)
        return [Written("~/.npmrc", text, False)] if text else []
    if values[:2] != ("pkg", "set"):
        return []
    found: list[Written] = []
    for value in values[2:]:
        key, eq, command = value.partition("=")
        if eq and key.startswith("scripts."):
            found.append(Written("package.json", command, False))
    return found


def _crontab(inv: Invocation, analysis: Analysis) -> list[Written]:
    """`crontab -` (or no file): the table is what the pipe feeds it."""
    operands = [w.value for w in inv.options.operands]
    if operands not in ([], ["-"]) or inv.has_flag("lreT", ("list", "remove", "edit", "test")):
        return []
    text = inv.stdin_text
    if text is None:
        feeds = [static_output(analysis.invocations[k]) for k in inv.upstream]
        text = "\n".join(t for t in feeds if t)
    return [Written("/var/spool/cron/crontabs/user", text)] if text else []


class _FoldersSeen:
    """The last command line read and its hook folders: read once, not once
    per invocation that writes (a long script echoes into files thousands
    of times)."""

    entry: tuple[Analysis, tuple[str, ...]] | None = None  # one attribute: thread-safe


def hook_folders(analysis: Analysis) -> tuple[str, ...]:
    """Folders `git config core.hooksPath DIR` names in this command line."""
    entry = _FoldersSeen.entry
    if entry is not None and entry[0] is analysis:
        return entry[1]
    found = _hook_folders(analysis)
    _FoldersSeen.entry = (analysis, found)
    return found


def _hook_folders(analysis: Analysis) -> tuple[str, ...]:
    if "hookspath" not in analysis.text.lower():
        return ()
    found: list[str] = []
    for inv in analysis.invocations:
        values = [v.lower() for v in inv.values]
        if inv.name == "git" and "core.hookspath" in values:
            k = values.index("core.hookspath")
            if k + 1 < len(values):
                found.append(inv.values[k + 1].rstrip("/"))
    return tuple(found)


def _as_hook(path: str, folders: tuple[str, ...]) -> str:
    """A file in a hooks folder is told as a git hook (`.githooks/NAME`)."""
    head, _, name = path.rpartition("/")
    return f".githooks/{name}" if head.rstrip("/") in folders else path
