"""Files a tool runs that its command line does not name as a script
(F-GATE-3): pytest's `conftest.py`, pip's `setup.py`, a package manager's
`package.json` scripts, git's hooks, `python -m MODULE` from the working
directory, `awk -f`, `sed -f`, `vim -S`, `gdb -x`, a shell's rc file and
the `BASH_ENV`/`ENV`/`PYTHONSTARTUP` a program is started with.

Each is told as `(path, language)`: `"shell"` for shell text, else the
interpreter whose code it is (judged as that language's inline code).
"""

from __future__ import annotations

from redline.shell import paths
from redline.shell.carriers import interpreter_family
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

RunFile = tuple[str, str]

_PYTESTS = frozenset({"pytest", "py.test", "pytest-3"})
_PIPS = frozenset({"pip", "pip3", "uv", "pipx"})
_NODE_MANAGERS = frozenset({"npm", "yarn", "pnpm", "bun"})
_BY_FILE_OPTION = {"awk": "-f", "gawk": "-f", "mawk": "-f", "nawk": "-f", "sed": "-f",
                   "vim": "-S", "nvim": "-S", "vi": "-S", "gdb": "-x"}  # fmt: skip
_FILE_LANGUAGE = {"sed": "sed", "vim": "vim", "nvim": "vim", "vi": "vim", "gdb": "gdb"}
# git commands and the hooks they run.
_GIT_HOOKS = {
    "commit": ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"),
    "push": ("pre-push",),
    "merge": ("pre-merge-commit", "commit-msg", "post-merge"),
    "pull": ("post-merge", "post-checkout"),
    "rebase": ("pre-rebase", "post-rewrite", "post-checkout"),
    "checkout": ("post-checkout",),
    "switch": ("post-checkout",),
    "am": ("applypatch-msg", "pre-applypatch", "post-applypatch"),
    "cherry-pick": ("pre-commit", "commit-msg", "post-commit"),
    "revert": ("pre-commit", "commit-msg", "post-commit"),
    "clone": ("post-checkout",),
}
NAMES = frozenset({*_PYTESTS, *_PIPS, *_NODE_MANAGERS, *_BY_FILE_OPTION, "git", "bash", "sh"})
_ENV_FILE = lazy_regex(r"\b(BASH_ENV|ENV|PYTHONSTARTUP)=(\"[^\"]*\"|'[^']*'|[^\s;&|]+)")
_HOOKS_PATH = lazy_regex(r"(?im)^\s*hookspath\s*=\s*(\S+)")
# Scripts npm, yarn, pnpm run when installing.
_INSTALL_SCRIPTS = ("preinstall", "install", "postinstall", "prepare", "prepublish")
_MANAGER_VERBS = frozenset({"install", "i", "add", "ci", "run", "run-script", "test", "t", "start",
                            "stop", "restart", "exec", "x", "dlx"})  # fmt: skip


def may_run_files(inv: Invocation) -> bool:
    """A cheap first test: could `inv` run a file it does not name as its script?"""
    name = inv.name
    return name in NAMES or (name.startswith("py") and interpreter_family(name) == "python")


def run_files(inv: Invocation, cwd: str | None) -> list[RunFile]:
    """The files `inv` runs, as paths (absolute, or `~`), with their language."""
    name, values = inv.name, inv.values
    if name in _PYTESTS:
        return _pytest_files(values, cwd)
    if interpreter_family(name) == "python":
        return _python_module(values, cwd)
    if name in _PIPS:
        return _pip_files(values, cwd)
    if name in _BY_FILE_OPTION:
        return _option_files(name, values, cwd)
    if name == "git":
        return _git_hooks(values, cwd)
    if name in ("bash", "sh"):
        found: list[RunFile] = []
        for k, value in enumerate(values[:-1]):
            if value in ("--rcfile", "--init-file"):
                found += _at(values[k + 1], cwd, "shell")
        return found
    return []


def env_files(text: str, cwd: str | None) -> list[RunFile]:
    """`BASH_ENV=F bash ...`, `ENV=F sh -i`, `PYTHONSTARTUP=F python -i`:
    the file the started program runs first."""
    if not _names_env(text):
        return []
    found: list[RunFile] = []
    for match in _ENV_FILE.finditer(text):
        language = "python" if match.group(1) == "PYTHONSTARTUP" else "shell"
        found += _at(match.group(2).strip("\"'"), cwd, language)
    return found


class _EnvSeen:
    """The last command line tested and the answer: one test per line, not
    one per program in it (a makefile's recipes run hundreds of them)."""

    entry: tuple[str, bool] | None = None  # one attribute: thread-safe


def _names_env(text: str) -> bool:
    entry = _EnvSeen.entry
    if entry is not None and entry[0] is text:
        return entry[1]
    found = "ENV=" in text or "STARTUP=" in text
    _EnvSeen.entry = (text, found)
    return found


def _at(value: str, cwd: str | None, language: str) -> list[RunFile]:
    if not value or DYNAMIC in value:
        return []
    path = paths.normalize(value, cwd)
    return [(path, language)] if path and path.startswith(("/", "~")) else []


def _ancestors(cwd: str | None, limit: int = 6) -> list[str]:
    if not cwd or not cwd.startswith("/"):
        return []
    found: list[str] = []
    here = cwd.rstrip("/") or "/"
    while len(found) < limit:
        found.append(here)
        if here == "/":
            break
        here = here.rsplit("/", 1)[0] or "/"
    return found


def _join(directory: str, name: str) -> str:
    return directory.rstrip("/") + "/" + name


def _pytest_files(values: tuple[str, ...], cwd: str | None) -> list[RunFile]:
    """pytest imports every `conftest.py` from the root down, and the test files it collects."""
    found: list[RunFile] = [(_join(d, "conftest.py"), "python") for d in _ancestors(cwd)]
    roots = [v for v in values if not v.startswith("-")] or ["tests", "test"]
    for root in roots:
        root = root.split("::", 1)[0]
        if root.endswith(".py"):
            found += _at(root, cwd, "python")
        else:
            found += _at(_join(root, "conftest.py"), cwd, "python")
    return found


def _python_module(values: tuple[str, ...], cwd: str | None) -> list[RunFile]:
    """`python -m MODULE`: the module is looked up from the working directory first."""
    for k, value in enumerate(values):
        module = ""
        if value == "-m" and k + 1 < len(values):
            module = values[k + 1]
        elif value.startswith("-m") and len(value) > 2:
            module = value[2:]
        if module:
            if module in _PYTESTS:
                return _pytest_files(values[k + 2 :], cwd)
            if module in ("pip", "pip3"):
                return _pip_files(values[k + 2 :], cwd)
            base = module.replace(".", "/")
            return _at(base + ".py", cwd, "python") + _at(base + "/__main__.py", cwd, "python")
        if not value.startswith("-"):
            return []
    return []


def _pip_files(values: tuple[str, ...], cwd: str | None) -> list[RunFile]:
    """`pip install .`, `pip install -e DIR`: the project's `setup.py` runs."""
    if "install" not in values and "wheel" not in values and "build" not in values:
        return []
    found: list[RunFile] = []
    for value in values:
        if value.startswith((".", "/", "~")) and not value.endswith((".whl", ".txt")):
            found += _at(_join(value, "setup.py"), cwd, "python")
    return found


def _option_files(name: str, values: tuple[str, ...], cwd: str | None) -> list[RunFile]:
    option = _BY_FILE_OPTION[name]
    language = _FILE_LANGUAGE.get(name, "awk")
    found: list[RunFile] = []
    for k, value in enumerate(values):
        if value == option and k + 1 < len(values):
            found += _at(values[k + 1], cwd, language)
        elif value.startswith(option) and len(value) > 2 and name not in ("vim", "nvim", "vi"):
            found += _at(value[2:], cwd, language)
        elif value.startswith(("--file=", "--script=")):
            found += _at(value.split("=", 1)[1], cwd, language)
    return found


def _git_hooks(values: tuple[str, ...], cwd: str | None) -> list[RunFile]:
    directory = cwd
    k = 0
    while k < len(values) and values[k].startswith("-"):
        if values[k] in ("-C", "-c") and k + 1 < len(values):
            if values[k] == "-C":
                directory = paths.normalize(values[k + 1], cwd) or directory
            k += 1
        k += 1
    hooks = _GIT_HOOKS.get(values[k]) if k < len(values) else None
    if not hooks or not directory or not directory.startswith("/"):
        return []
    # Each directory that may be the repository's root, with the hooks run.
    return [(d, " ".join(hooks)) for d in _ancestors(directory)]


def git_hook_dirs(root: str, config: str | None) -> list[str]:
    """Where git looks for a repository's hooks: `.git/hooks`, or `core.hooksPath`."""
    found = [_join(root, ".git/hooks")]
    match = _HOOKS_PATH.search(config or "")
    if match:
        value = match.group(1).strip("\"'")
        found.append(value if value.startswith("/") else _join(root, value))
    return found


def package_scripts(text: str, verbs: tuple[str, ...]) -> list[str]:
    """The `package.json` scripts a manager's command runs: the named script
    with its `pre`/`post` hooks, or the install lifecycle scripts."""
    import json

    try:
        data = json.loads(text)
    except ValueError:
        return []  # the manager refuses a package.json it cannot read
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return []
    if verbs == ("*",):
        return [str(v) for v in scripts.values()]
    if not verbs:
        return [str(scripts[n]) for n in _INSTALL_SCRIPTS if n in scripts]
    return [str(scripts[n]) for n in verbs if n in scripts]


def manager_scripts(inv: Invocation) -> tuple[str, ...] | None:
    """The script names `npm test`, `npm run X`, `yarn X`, `pnpm X`, `bun run
    X` run (with their hooks); `()` for an install; `None` for neither."""
    words = _manager_words(inv.values)
    name = inv.name
    if not words:
        return () if name in ("yarn", "pnpm", "npm") and not inv.values else None
    verb = words[0]
    if verb in ("install", "i", "add", "ci", "rebuild", "rb"):
        return () if name != "bun" else None
    if verb in ("it", "install-test", "cit", "install-ci-test"):
        return (*_INSTALL_SCRIPTS, "pretest", "test", "posttest")
    if verb in ("pack", "publish"):  # they prepare the package first
        return ("prepare", "prepack", "postpack", "prepublishOnly", "prepublish", "publish")
    if verb == "restart":
        return ("prerestart", "restart", "postrestart", "prestop", "stop", "poststop",
                "prestart", "start", "poststart")  # fmt: skip
    if verb == "version":
        return ("preversion", "version", "postversion")
    if verb in ("run", "run-script") and len(words) > 1:
        script = words[1]
    elif verb in ("test", "t", "tst"):
        script = "test"
    elif verb in ("start", "stop") or (name in ("yarn", "pnpm") and verb not in _MANAGER_VERBS):
        script = verb
    else:
        return None
    return ("pre" + script, script, "post" + script)


# The managers' options that take a value (a folder, mostly).
_MANAGER_FOLDERS = frozenset({"--prefix", "-C", "--cwd", "--dir", "-w", "--workspace"})
_MANAGER_VALUED = _MANAGER_FOLDERS | {"--filter", "-F", "--registry", "--cache", "--userconfig"}


def _manager_words(values: tuple[str, ...]) -> list[str]:
    words: list[str] = []
    k = 0
    while k < len(values):
        if values[k] in _MANAGER_VALUED:
            k += 2
            continue
        if not values[k].startswith("-"):
            words.append(values[k])
        k += 1
    return words


def manager_folder(inv: Invocation) -> str:
    """The folder whose `package.json` a manager reads (`npm --prefix sub
    test`, `yarn --cwd sub build`, `pnpm -C sub test`): `""` for its own."""
    values = inv.values
    for k, value in enumerate(values):
        option, eq, given = value.partition("=")
        if option in _MANAGER_FOLDERS:
            folder = given if eq else (values[k + 1] if k + 1 < len(values) else "")
            return folder.rstrip("/") + "/" if folder and DYNAMIC not in folder else ""
    return ""
