"""Programs that run programs through options, environment or config (F-SHELL-3).

The routes `embedded`, `wrappers`, `runners` and `subcommands` do not cover:
`git config alias.x '!CMD'`, `git difftool --extcmd=CMD`, `hg --config`,
`svn --editor-cmd`, `emacs --eval '(shell-command ...)'`, `fzf --preview`,
`hyperfine CMD`, `entr`, `watchexec`, `perf stat`, `valgrind`, `xterm -e`,
`apt-get -o ...::Pre-Invoke::=CMD`, `make -f -` and `$(shell CMD)`, `crontab -`,
sed's `s///e`, awk's `system($0)`, `man -H`, `scp -S`, and the code a
carrier runs that no one can read (`vim -s FILE`, `at -f FILE`,
`git -c core.hooksPath=DIR`). Each finder returns what runs: a script, an
argv, or `DYNAMIC` (code computed elsewhere, asked at least). The table of
every route, with its examples, is `run_carrier_table.ROUTES`.
"""

import re
import sys
from collections.abc import Callable

from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC, Word
from redline.shell.run_options import Run
from redline.shell.run_options import long_option as _long
from redline.shell.run_options import option_scripts as _option_scripts
from redline.shell.run_options import script as _script

# -- git and the other version control systems -----------------------------

_HOOKS_OK = ("/dev/null",)


def git_config_runs(key: str, value: str) -> str | None:
    """What a git configuration pair runs, if anything: an alias's `!CMD`, a
    command key's value, `DYNAMIC` for a hooks directory outside the repository."""
    from redline.shell.subcommands import runs_command  # a cycle: import at use

    key = key.lower()
    if key.startswith("alias.") or (key.startswith("submodule.") and key.endswith(".update")):
        return value[1:] if value.startswith("!") else None
    if key == "core.hookspath":
        inside = not value.startswith(("/", "~", "$")) and ".." not in value
        return None if inside or value in _HOOKS_OK else DYNAMIC
    if runs_command(key) and value:
        return value.removeprefix("!")
    return None


_GIT_CONFIG_SCOPES = frozenset(
    {"--global", "--system", "--local", "--worktree", "--add", "--replace-all", "--type",
     "--bool", "--int", "--path", "--file", "-f", "--blob", "set", "--all", "--append"}
)  # fmt: skip
_GIT_VALUE_SCOPES = frozenset({"--file", "-f", "--blob", "--type", "--comment", "--default",
                               "--value"})  # fmt: skip


def _git_config(argv: tuple[Word, ...], k: int) -> list[Run]:
    words: list[str] = []
    j = k + 1
    while j < len(argv):
        value = argv[j].value
        if value in ("--get", "--get-all", "--unset", "--list", "-l", "get", "unset", "list"):
            return []
        if value in _GIT_VALUE_SCOPES:
            j += 2
            continue
        # `--file=F`, `--comment=C`: an option with its value attached
        if value not in _GIT_CONFIG_SCOPES and not (value.startswith("--") and "=" in value):
            words.append(value)
        j += 1
    if len(words) < 2:
        return []
    found = git_config_runs(words[0], words[1])
    return [] if found is None else _script(f"git config {words[0]}", found)


# git subcommand options whose value is a command line.
_GIT_OPTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "difftool": (("extcmd",), "x"),
    "send-email": (("to-cmd", "cc-cmd", "sendmail-cmd", "header-cmd"), ""),
    "grep": (("open-files-in-pager",), "O"),
    "fetch": (("upload-pack",), ""),
    "pull": (("upload-pack",), ""),
    "clone": (("upload-pack",), "u"),
    "ls-remote": (("upload-pack",), ""),
    "push": (("receive-pack", "exec"), ""),
    "archive": (("exec",), ""),
}


def _git(inv: Invocation) -> list[Run]:
    argv, found = inv.argv, []
    for k, word in enumerate(argv[1:], 1):
        value = word.value
        if value.startswith("ext::"):  # the `ext` transport runs its command
            found += _script("git ext::", value[5:].replace("% ", " ").replace("%%", "%"))
        elif value == "config" and not found:
            found += _git_config(argv, k)
        elif value in _GIT_OPTIONS and k + 1 < len(argv):
            longs, shorts = _GIT_OPTIONS[value]
            rest = Invocation(inv.name, argv[k:], (), inv.span)
            found += _option_scripts(rest, f"git {value}", longs, shorts)
        setting = argv[k + 1].value if value == "--config" and k + 1 < len(argv) else ""
        if value.startswith(("--config=", "--config-env=")):
            setting = value.partition("=")[2]
        if setting:  # `git clone --config K=V`, `git --config-env=K=ENV` (a value unseen)
            key, _, command = setting.partition("=")
            command = DYNAMIC if value.startswith("--config-env") else command
            found += _script(f"git {value.partition('=')[0]}", git_config_runs(key, command) or "")
        if value == "-c" and k + 1 < len(argv):
            key, _, setting = argv[k + 1].value.partition("=")
            if key.lower() == "core.hookspath" or key.lower().startswith("submodule."):
                found += _script(f"git -c {key}", git_config_runs(key, setting) or "")
    return found


def _hg(inv: Invocation) -> list[Run]:
    found: list[Run] = []
    values = inv.values
    for k, value in enumerate(values):
        setting = value.partition("=")[2] if value.startswith("--config=") else ""
        if value == "--config" and k + 1 < len(values):
            setting = values[k + 1]
        key, _, command = setting.partition("=")
        key = key.lower()
        if key.startswith("alias.") and command.startswith("!"):
            found += _script("hg alias", command[1:])
        elif key.startswith("hooks.") or key in ("ui.editor", "ui.merge", "ui.ssh"):
            found += _script(f"hg --config {key}", command)
    return found + _option_scripts(inv, "hg", ("ssh", "remotecmd"), "e")


# -- editors, debuggers, pagers and terminals ------------------------------

_LISP_SHELL = lazy_regex(
    r"\((?:async-)?shell-command(?:-to-string)?|\(call-process-shell-command|"
    r"\(start-process-shell-command\s+\"[^\"]*\"\s+\S+|\(compile"
)
_LISP_STRING = lazy_regex(r"\s*\"((?:[^\"\\]|\\.)*)\"")


def _lisp_shell(code: str) -> list[str]:
    found = []
    for match in _LISP_SHELL.finditer(code):
        string = _LISP_STRING.match(code, match.end())
        found.append(string.group(1).replace('\\"', '"') if string else DYNAMIC)
    for match in _LISP_FILES.finditer(code):  # `(delete-directory "~" t)`: its shell twin
        path = _LISP_STRING.match(code, match.end())
        target = _quoted(path.group(1)) if path else DYNAMIC
        if match.group(1) == "delete-file":
            found.append(f"rm -f -- {target}")
        else:
            recursive = code[path.end() if path else match.end() :].lstrip()[:1] not in (")", "")
            found.append(f"rm -rf -- {target}" if recursive else f"rmdir -- {target}")
    return found


# Emacs Lisp's file deletes, told as `rm` (a second argument to
# `delete-directory` other than the closing parenthesis is RECURSIVE).
def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


_LISP_FILES = lazy_regex(r"\((delete-file|delete-directory)\b")


def _emacs(inv: Invocation) -> list[Run]:
    runs = _option_scripts(inv, "emacs", ("eval",), whole="-eval --execute")
    return [Run(r.label, script=s) for r in runs for s in _lisp_shell(r.script or "")]


def _man(inv: Invocation) -> list[Run]:
    """`man -HBROWSER`, `man --html=BROWSER` (the browser's value is only attached)."""
    found: list[Run] = []
    for value in inv.values:
        if value.startswith("-H") and len(value) > 2:
            found += _script("man -H", value[2:])
        elif value.startswith("--") and "=" in value and _long(value, ("html",), 2):
            found += _script("man --html", value.partition("=")[2])
        elif value.startswith("--") and _long(value, ("pager",), 2):
            found += _script("man --pager", value.partition("=")[2])
    return found


def _vim(inv: Invocation) -> list[Run]:
    """`vim -s FILE` replays keys from a file no one read (not `-es`: silent)."""
    values = inv.values
    ex_mode = any(v in ("-e", "-E", "-es", "-Es") or v.startswith("-e") for v in values)
    if inv.name in ("ex", "exim") or ex_mode:
        return []
    return [Run("vim -s", script=DYNAMIC) for k, v in enumerate(values[:-1]) if v == "-s"]


def _fzf(inv: Invocation) -> list[Run]:
    found = _option_scripts(inv, "fzf", ("preview",))
    for value in inv.values:
        for match in _FZF_ACTION.finditer(value):
            found += _script("fzf --bind", match.group(1))
    return found


_FZF_ACTION = lazy_regex(r"(?:execute(?:-silent|-multi)?|become|reload|preview)[(\[{<]([^)\]}>]*)")


# -- awk and sed: code computed from the input ------------------------------

_AWK_DYNAMIC = lazy_regex(r"\bsystem\s*\(\s*(?!\")|\|\s*getline\b|\|\s*(?!\")[A-Za-z_$]")
_AWK_STATIC_GETLINE = lazy_regex(r"\"(?:[^\"\\]|\\.)*\"\s*\|\s*getline\b")


def _awk(inv: Invocation) -> list[Run]:
    from redline.shell.carriers import inline_code  # a cycle: import at use

    code = inline_code(inv)
    if not code:
        return []
    found = []
    if _AWK_DYNAMIC.search(_AWK_STATIC_GETLINE.sub("", code)):
        found.append(Run(f"{inv.name} system()", script=DYNAMIC))
    for match in _AWK_PRINTF_SHELL.finditer(code):
        found += _script(f"{inv.name} printf |", match.group(1).replace("\\n", "\n"))
    return found


_AWK_PRINTF_SHELL = lazy_regex(
    r"\bprintf?\s*\"((?:[^\"\\]|\\.)*)\"\s*\|\s*\"(?:/bin/|/usr/bin/)?(?:ba|da|z|k)?sh\""
)
# `s/RE/REPLACEMENT/FLAGS` with the `e` flag runs the pattern space.
_SED_S_E = lazy_regex(
    r"(?:^|[;\n{}])\s*s(.)(.*?)(?<!\\)\1(.*?)(?<!\\)\1([gpIiMm0-9w]*e[gpIiMm0-9]*)"
)
_WHOLE_LINE = frozenset({".*", "^.*", "^.*$", ".*$", "^\\(.*\\)$"})


def _sed(inv: Invocation) -> list[Run]:
    from redline.shell.embedded import sed_programs  # a cycle: import at use

    found: list[Run] = []
    for program in sed_programs(inv):
        for match in _SED_S_E.finditer(program):
            pattern, replacement = match.group(2), match.group(3)
            static = (
                pattern in _WHOLE_LINE
                and "&" not in replacement
                and "\\" not in (replacement.replace("\\" + match.group(1), ""))
            )
            text = replacement.replace("\\" + match.group(1), match.group(1))
            found.append(Run("sed s///e", script=text if static else DYNAMIC))
    return found


_GDB_PYTHON = lazy_regex(r"\s*(?:python|py|pi)\b\s*(.*)", re.DOTALL)
# A shell call whose command is not a string literal: computed at run time.
_RUNS_SHELL = lazy_regex(
    r"\b(?:system|popen|Popen|check_output|run|call|getoutput)\s*\(\s*(?![\"'\[])"
)


def _gdb(inv: Invocation) -> list[Run]:
    """`gdb -ex 'python CODE'`: its shell calls, static or not."""
    from redline.shell.carriers import shell_in_code  # a cycle: import at use

    found: list[Run] = []
    for run in _option_scripts(inv, "gdb", ("eval-command", "init-eval-command"), "",
                               "-ex --ex -iex --iex -eval-command -init-eval-command"):  # fmt: skip
        match = _GDB_PYTHON.match(run.script or "")
        if match is None:
            continue
        carried = shell_in_code(match.group(1), "python")
        found += [Run("gdb python", script=c.text) for c in carried]
        if _RUNS_SHELL.search(match.group(1)):
            found.append(Run("gdb python", script=DYNAMIC))
    return found


def _scp(inv: Invocation) -> list[Run]:
    return _option_scripts(inv, inv.name, (), "S")


def _nodemon(inv: Invocation) -> list[Run]:
    return _option_scripts(inv, "nodemon", ("exec",), "x")


def _svn(inv: Invocation) -> list[Run]:
    return _option_scripts(inv, "svn", ("editor-cmd", "diff-cmd", "diff3-cmd"))


def _wget(inv: Invocation) -> list[Run]:
    return _option_scripts(inv, "wget", ("use-askpass",))


def _sg(inv: Invocation) -> list[Run]:
    return _option_scripts(inv, "sg", ("command",), "c")


FINDERS: dict[str, Callable[[Invocation], list[Run]]] = {
    "git": _git, "gdb": _gdb, "hg": _hg, "svn": _svn, "emacs": _emacs, "emacsclient": _emacs,
    "man": _man, "fzf": _fzf, "sk": _fzf, "sed": _sed, "scp": _scp, "sftp": _scp,
    "nodemon": _nodemon, "wget": _wget, "sg": _sg,
    **dict.fromkeys(("vim", "vi", "nvim", "view", "gvim", "vimdiff"), _vim),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), _awk),
}  # fmt: skip
# The programs the other finder modules read, so that a call running none of
# them never loads them (a hook's start stays light); a test checks these
# against the modules' own tables.
_RUNNER_NAMES = (
    "hyperfine pueue ip capsh cmake expect lftp apt-get apt aptitude crontab at batch make "
    "gmake perf entr valgrind dbus-launch tsp dtach abduco watchexec xterm uxterm urxvt rxvt "
    "konsole alacritty kitty gnome-terminal kgx xfce4-terminal terminator tilix "
    "mate-terminal lxterminal st foot wezterm"
)
_TOOL_NAMES = (
    "ed red ex vim vi nvim sftp dc gdb bpftrace dtrace psql mysql mariadb sqlite3 strace "
    "ltrace socat ncat nc netcat tmux npm make gmake gh wget ssh-agent"
)
LAZY_FINDERS: dict[str, frozenset[str]] = {
    "command_runners": frozenset(_RUNNER_NAMES.split()),
    "tool_scripts": frozenset(_TOOL_NAMES.split()),
}
_LAZY_BY_NAME: dict[str, tuple[str, ...]] = {}
for _module, _names in LAZY_FINDERS.items():
    for _name in _names:
        _LAZY_BY_NAME[_name] = (*_LAZY_BY_NAME.get(_name, ()), f"redline.shell.{_module}")
NAMES = frozenset(FINDERS).union(*LAZY_FINDERS.values())


def runs(inv: Invocation) -> list[Run]:
    """What `inv` runs through a route the other carriers do not read."""
    name = inv.name
    finder, lazy = FINDERS.get(name), _LAZY_BY_NAME.get(name)
    if finder is None and lazy is None:
        return []
    found = finder(inv) if finder is not None else []
    for module in lazy or ():
        __import__(module)  # not `importlib`: kept off a hook's start
        found += sys.modules[module].FINDERS[name](inv)
    return found


# Environment variables whose value is code run by the next program, read
# from a file no one saw: asked, since the analysis cannot read it.
UNSEEN_ENV = frozenset(
    {"LD_PRELOAD", "LD_AUDIT", "PYTHONSTARTUP", "NODE_OPTIONS", "PERL5OPT", "RUBYOPT",
     "DYLD_INSERT_LIBRARIES", "GIT_EXEC_PATH"}
)  # fmt: skip
# More variables whose value is a command line.
MORE_ENV_COMMANDS = frozenset(
    {"FZF_DEFAULT_COMMAND", "SUDO_EDITOR", "GH_EDITOR", "GH_PAGER", "GLAB_EDITOR",
     "DELTA_PAGER", "BAT_PAGER", "HG_EDITOR", "SVN_SSH"}
)  # fmt: skip
_GIT_PARAMETER = lazy_regex(r"'([^'=]+)=([^']*)'")
_OPTIONS_REQUIRE = lazy_regex(r"(?:^|\s)(?:-r|--require|--import|--loader|-M|-I|-r\S)")


def env_command(name: str, value: str) -> str | None:
    """The command a variable's value stands for, beyond `carriers.ENV_COMMANDS`."""
    if name.startswith("GIT_CONFIG_VALUE_"):
        return value
    if name in MORE_ENV_COMMANDS:
        return value
    if name == "GIT_CONFIG_PARAMETERS":
        found = [git_config_runs(k, v) for k, v in _GIT_PARAMETER.findall(value)]
        scripts = [s for s in found if s]
        return "\n".join(scripts) if scripts else None
    if name in UNSEEN_ENV:
        if name in ("NODE_OPTIONS", "PERL5OPT", "RUBYOPT") and not _OPTIONS_REQUIRE.search(value):
            return None
        return DYNAMIC
    return None
