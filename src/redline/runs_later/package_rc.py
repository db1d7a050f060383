"""Package managers' settings files that make them run code: `.npmrc`
(`node-options=--require FILE` loads FILE into every node process npm
starts; `script-shell`, `onload-script`, `git`), `.yarnrc.yml` (`yarnPath`,
`plugins`) and yarn 1's `.yarnrc` (`yarn-path`). That code is not in the
file: such a setting is `unseen` (asked). Commands npm runs by name
(`editor`, `browser`) are judged as commands. Registry and auth settings
are ordinary.
"""

from __future__ import annotations

from redline.shell.lazy_regex import lazy_regex

_NPM_LINE = lazy_regex(r"\s*([^=;#\s][^=]*?)\s*=\s*(.*?)\s*\Z")
_PRELOAD = lazy_regex(r"(?:^|\s)(?:--require|-r|--import|--loader|--experimental-loader)\b")
_NPM_PROGRAMS = {"script-shell": "runs every package script with", "shell": "runs a shell of",
                 "git": "runs git as"}  # fmt: skip
_NPM_CODE = {"onload-script": "loads a module into npm itself",
             "init-module": "runs a module at `npm init`",
             "pnpmfile": "loads a pnpm hook file at install",
             "global-pnpmfile": "loads a pnpm hook file at install"}  # fmt: skip
_NPM_COMMANDS = ("editor", "browser", "viewer")
_SYSTEM_BIN = frozenset({"/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"})
_YARN_PATH = lazy_regex(r"\s*yarn-path\s+\"?([^\"]*)\"?")


def npmrc_entries(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        match = _NPM_LINE.match(line)
        if match is not None:
            value = match.group(2)
            if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            found.append((match.group(1).strip("\"'").lower(), value))
    return found


def npmrc_commands(text: str) -> list[str]:
    return [v for k, v in npmrc_entries(text) if k in _NPM_COMMANDS and v.strip()]


def npmrc_unseen(text: str) -> list[tuple[str, str]]:
    from redline.shell.carriers import SHELLS

    found: list[tuple[str, str]] = []
    for key, value in npmrc_entries(text):
        line = f"{key}={value}"
        if key == "node-options" and _PRELOAD.search(value):
            found.append(("loads a file into every node process npm starts", line))
        elif key in _NPM_PROGRAMS and value.strip():
            folder, _, program = value.split()[0].rpartition("/")
            plain = (program in SHELLS if key != "git" else program == "git") and (
                folder in _SYSTEM_BIN or (not folder and "/" not in value.split()[0])
            )
            if not plain or len(value.split()) > 1:
                found.append((f"{_NPM_PROGRAMS[key]} `{value}`", line))
        elif key in _NPM_CODE and value.strip():
            found.append((_NPM_CODE[key], line))
    return found


def yarnrc_unseen(text: str) -> list[tuple[str, str]]:
    """`.yarnrc.yml`'s `yarnPath` and `plugins` outside yarn's own folders."""
    from redline.runs_later.ci_formats import load_yaml

    data = load_yaml(text)
    if not isinstance(data, dict):
        why = "runs yarn itself from a file of the project's"
        return [(why, m.group(0).strip()) for m in _YARN_PATH.finditer(text)]
    found: list[tuple[str, str]] = []
    path = data.get("yarnPath")
    if isinstance(path, str) and not _inside(path, ".yarn/releases/"):
        found.append(("runs yarn itself from a file outside `.yarn/releases`", f"yarnPath: {path}"))
    plugins = data.get("plugins")
    for plugin in plugins if isinstance(plugins, list) else ():
        where = plugin.get("path") if isinstance(plugin, dict) else plugin
        if isinstance(where, str) and not _inside(where, ".yarn/plugins/"):
            found.append(("loads a yarn plugin from outside `.yarn/plugins`", f"plugin: {where}"))
    return found


def _inside(path: str, folder: str) -> bool:
    path = path.removeprefix("./")
    return path.startswith(folder) and ".." not in path
