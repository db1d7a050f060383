"""Commands tools run from their own small languages and their stdin
(F-SHELL-3): `ed`'s and `ex`'s `!CMD`, `sftp -b -`'s `!CMD`, `dc`'s `!CMD`,
gdb's `shell CMD` and `call system("CMD")`, bpftrace's `system("CMD")`,
database clients' shell escapes read on stdin, `strace -o '|CMD'`,
`socat EXEC:CMD`, `ncat --sh-exec CMD`, `ssh-agent CMD`, `tmux -c CMD`,
npm's `--script-shell` and stored scripts, `make SHELL=CMD`, `gh alias set
--shell`, `mysql --pager=CMD`, `wget -e use_askpass=CMD`. Part of the
table in `run_carrier_table`.
"""

from collections.abc import Callable

from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import LazyPattern, lazy_regex
from redline.shell.run_options import Run
from redline.shell.run_options import option_scripts as _option_scripts
from redline.shell.run_options import script as _script

# A line of ed or ex that runs a shell: `!CMD`, `r !CMD`, `w !CMD`, `e !CMD`, `.,$!CMD`.
_ED_BANG = lazy_regex(r"^\s*:?\s*(?:[.,$;%\d'a-z+-]*\s*)?(?:[rwe]\s*|read\s+|write\s+)?!(.+)$")
_DC_BANG = lazy_regex(r"!([^\n]+)")
_GDB_SHELL = lazy_regex(r"^\s*(?:shell\s+|!)(.+)$")
_C_SYSTEM = lazy_regex(r"\bsystem\s*\(\s*\"((?:[^\"\\]|\\.)*)\"")
_SQL_SHELL = lazy_regex(r"^\s*(?:system\s+|\\!\s*|\.shell\s+|\.system\s+)(.+)$")
_ASKPASS = lazy_regex(r"^\s*use_askpass\s*=\s*(.+)$")


def _lines(text: str | None, pattern: LazyPattern, label: str) -> list[Run]:
    if not text:
        return []
    found: list[Run] = []
    for line in text.splitlines():
        match = pattern.match(line)
        if match is not None:
            found += _script(label, match.group(1))
    return found


def _ed(inv: Invocation) -> list[Run]:
    """`ed f <<< '!CMD'`, `ex -s f <<< '!CMD'`, `vim -es f <<< '!CMD'`."""
    values = inv.values
    if inv.name in ("vim", "vi", "nvim") and not any(v.startswith(("-e", "-E")) for v in values):
        return []
    return _lines(inv.stdin_text, _ED_BANG, f"{inv.name} !")


def _sftp(inv: Invocation) -> list[Run]:
    values = inv.values
    batch = any(values[k] == "-b" and values[k + 1] in ("-", "/dev/stdin")
                for k in range(len(values) - 1))  # fmt: skip
    return _lines(inv.stdin_text, _ED_BANG, "sftp -b !") if batch or "-b-" in values else []


def _dc(inv: Invocation) -> list[Run]:
    texts = [r.script or "" for r in _option_scripts(inv, "dc", ("expression",), "e")]
    texts.append(inv.stdin_text or "")
    return [Run("dc !", script=m.group(1)) for t in texts for m in _DC_BANG.finditer(t)]


def _gdb(inv: Invocation) -> list[Run]:
    found = _lines(inv.stdin_text, _GDB_SHELL, "gdb shell")
    for value in (*inv.values, inv.stdin_text or ""):
        found += [Run("gdb system()", script=m.group(1)) for m in _C_SYSTEM.finditer(value)]
    return found


def _bpftrace(inv: Invocation) -> list[Run]:
    return [Run(f"{inv.name} system()", script=m.group(1))
            for v in inv.values for m in _C_SYSTEM.finditer(v)]  # fmt: skip


def _sql_client(inv: Invocation) -> list[Run]:
    found = _lines(inv.stdin_text, _SQL_SHELL, f"{inv.name} shell escape")
    if inv.name in ("mysql", "mariadb"):
        found += _option_scripts(inv, inv.name, ("pager",))
    return found


def _tracer(inv: Invocation) -> list[Run]:
    """`strace -o '|CMD' ls`: the trace is piped into CMD."""
    runs = _option_scripts(inv, inv.name, ("output",), "o")
    return [Run(r.label, script=r.script[1:]) for r in runs
            if r.script and r.script[0] in "|!"]  # fmt: skip


def _socat(inv: Invocation) -> list[Run]:
    found: list[Run] = []
    for value in inv.values:
        kind, colon, rest = value.partition(":")
        if colon and kind.upper() in ("EXEC", "SYSTEM"):
            found += _script(f"socat {kind.upper()}:", rest.split(",", 1)[0])
    return found


def _ncat(inv: Invocation) -> list[Run]:
    return _option_scripts(inv, inv.name, ("exec", "sh-exec"), "ec")


def _tmux(inv: Invocation) -> list[Run]:
    values = inv.values
    return _script("tmux -c", values[1]) if values[:1] == ("-c",) and len(values) > 1 else []


def _npm(inv: Invocation) -> list[Run]:
    found = _option_scripts(inv, "npm", ("script-shell",))
    values = inv.values
    if values[:2] == ("pkg", "set"):
        for value in values[2:]:
            key, eq, command = value.partition("=")
            if eq and key.startswith("scripts."):
                found += _script(f"npm pkg set {key}", command)
    elif values[:1] == ("set-script",) and len(values) >= 3:
        found += _script("npm set-script", values[2])
    return found


def _make_shell(inv: Invocation) -> list[Run]:
    """`make SHELL='CMD' all`: recipes run as `CMD -c RECIPE`."""
    found: list[Run] = []
    for value in inv.values:
        if value.startswith("SHELL=") and " " in value.strip():
            found += _script("make SHELL=", value[len("SHELL=") :])
    return found


def _gh(inv: Invocation) -> list[Run]:
    """`gh alias set --shell NAME CMD`, `gh alias set NAME '!CMD'`."""
    values = inv.values
    if values[:2] != ("alias", "set"):
        return []
    rest = [v for v in values[2:] if not v.startswith("-")]
    shell = any(v in ("-s", "--shell") for v in values[2:])
    if len(rest) < 2:
        return []
    expansion = rest[1]
    if shell or expansion.startswith("!"):
        return _script("gh alias --shell", expansion.removeprefix("!"))
    return []


def _wget(inv: Invocation) -> list[Run]:
    runs = _option_scripts(inv, "wget", ("execute",), "e")
    return [Run("wget use_askpass", script=m.group(1)) for r in runs
            if (m := _ASKPASS.match(r.script or "")) is not None]  # fmt: skip


def _ssh_agent(inv: Invocation) -> list[Run]:
    argv, k = inv.argv, 1
    while k < len(argv) and argv[k].value.startswith("-"):
        k += 2 if argv[k].value in ("-a", "-E", "-t", "-P", "-O") else 1
    return [Run("ssh-agent", argv=argv[k:])] if k < len(argv) else []


FINDERS: dict[str, Callable[[Invocation], list[Run]]] = {
    "ed": _ed, "red": _ed, "ex": _ed, "vim": _ed, "vi": _ed, "nvim": _ed, "sftp": _sftp,
    "dc": _dc, "gdb": _gdb, "bpftrace": _bpftrace, "dtrace": _bpftrace, "psql": _sql_client,
    "mysql": _sql_client, "mariadb": _sql_client, "sqlite3": _sql_client, "strace": _tracer,
    "ltrace": _tracer, "socat": _socat, "ncat": _ncat, "nc": _ncat, "netcat": _ncat,
    "tmux": _tmux, "npm": _npm, "make": _make_shell, "gmake": _make_shell, "gh": _gh,
    "wget": _wget, "ssh-agent": _ssh_agent,
}  # fmt: skip
