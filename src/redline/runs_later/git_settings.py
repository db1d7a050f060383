"""A setting `git config` writes that makes git run something the judge
cannot see (`placed_moves`): the same pair written into the config file by
hand is read by `git_config`; given as a command it is judged the same way.

The command a setting carries is judged as a command by the run carriers
(`git config core.pager 'rm -rf ~'` is the hard line). What no command line
shows is unseen, and asked:

- a command that runs a file by its path (`core.fsmonitor ./x`, `alias.x
  '!sh /tmp/y.sh'`, `core.sshCommand ~/bin/s`): git runs the file's text
  at every `git status`, fetch or alias, as it is then, and anyone may
  change it after the setting was judged. Programs in the system's own
  folders (`/usr/bin/less`) are programs, not such files;
- `core.fsmonitor` set to anything but a boolean (git's own daemon): a
  program git runs at every `git status`, a hook in all but name;
- `core.hooksPath` naming a folder inside the repository the judge does not
  watch as git hooks (`.githooks`, `.husky`, `.git/hooks` are watched; a
  folder outside is asked by the run carriers);
- what `git_config.unseen` reads in a file: `include.path`, a hooks folder
  outside the repository, a transport helper.
"""

from __future__ import annotations

from redline.rules import argv
from redline.runs_later import git_config, places

# Options of `git config` that take a value (the file, the type...).
_VALUED = ("f", ("file", "blob", "type", "default", "comment", "value"))
# Verbs and options that read or remove: no value is set.
_NOT_SETTING = frozenset({"get", "get-all", "get-regexp", "get-urlmatch", "unset", "unset-all",
                          "list", "edit", "rename-section", "remove-section", "-l", "-e",
                          "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--unset",
                          "--unset-all", "--list", "--edit", "--rename-section",
                          "--remove-section", "--get-color", "--get-colorbool"})  # fmt: skip
_BOOLEANS = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0", ""})
# Folders whose programs the system installed (an agent running as the owner cannot
# change them without a hard line of its own).
_SYSTEM = ("/usr/", "/bin/", "/sbin/", "/opt/", "/nix/", "/snap/", "/Applications/",
           "/Library/", "/System/")  # fmt: skip


def setting(values: tuple[str, ...]) -> tuple[str, str, str] | None:
    """`(file, key, value)` a `git config` arguments set; `None` when they set
    nothing. The file as written: `.git/config` unless a scope says."""
    if any(v in _NOT_SETTING for v in values):
        return None
    args = argv.parse(values, *_VALUED)
    words = list(args.operands)
    if words[:1] == ["set"]:
        words = words[1:]
    if len(words) < 2:
        return None
    files = args.value("-f", "--file")
    if files:
        where = files[-1]
    elif args.has("--global"):
        where = "~/.gitconfig"
    elif args.has("--system"):
        where = "/etc/gitconfig"
    elif args.has("--worktree"):
        where = ".git/config.worktree"
    else:
        where = ".git/config"
    return where, words[0], words[1]


def unseen(key: str, value: str) -> str | None:
    """Why the setting makes git run something unseen; `None` when it does not."""
    lowered = key.lower()
    if lowered == "core.fsmonitor" and value.lower() not in _BOOLEANS:
        return "runs a program at every `git status`"
    if lowered == "core.hookspath":
        from redline.shell.model import DYNAMIC
        from redline.shell.run_carriers import git_config_runs

        # A folder outside the repository: the run carriers ask it already.
        outside = git_config_runs(lowered, value) == DYNAMIC
        if outside or _watched_hooks(value):
            return None
        return "runs git hooks from a folder the judge does not watch"
    section, _, name = key.rpartition(".")
    text = _as_text(section, name, value)
    found = git_config.unseen(text)
    if found:
        return found[0][0]
    for command in git_config.commands(text):
        path = _file_run(command)
        if path is not None:
            return f"runs the file `{path}`, whose text can change after it is judged"
    return None


def _watched_hooks(folder: str) -> bool:
    if folder in ("/dev/null", ""):
        return True
    trimmed = folder.rstrip("/")
    return places.is_git_hook(f"{trimmed}/pre-commit")


def _as_text(section: str, name: str, value: str) -> str:
    """The pair as a config file holds it (`[remote "origin"]` for `remote.origin.url`)."""
    head, dot, sub = section.partition(".")
    header = f'[{head} "{sub}"]' if dot else f"[{head}]"
    quoted = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'{header}\n\t{name} = "{quoted}"\n'


def _file_run(command: str) -> str | None:
    """The file by path a command runs as its program or script, if any."""
    from redline.shell.analysis import analyze
    from redline.shell.script_runs import script_run

    for inv in analyze(command, None).invocations:
        run = script_run(inv)
        if run is not None and not run.path.startswith(_SYSTEM):
            return run.path
    return None
