"""Files that shadow a program on PATH (issue 13): `ln -sf /tmp/x
~/.local/bin/git`, `cp /tmp/x ~/.local/bin/git`, a script written there or
`busybox --install -s ~/.local/bin` make the next `git` anyone types run
something else. A shim is code that runs later, like a written hook; a link
or copy of a program under its own name (`~/.local/bin/python` to
`/usr/bin/python3`) is the usual set-up and passes. The writes are read once
per command with the other sensitive writes: `sensitive.path-shim` is
`rules.sensitive`'s."""

from __future__ import annotations

from redline.shell import paths
from redline.shell.invocation import Invocation
from redline.shell.model import DYNAMIC, Word

# Folders on a usual PATH, ahead of the system's own: the owner's tool folders
# (version managers' shims, language package bins) and the system's.
_PATH_DIRS = frozenset(
    {"~/.local/bin", "~/bin", "~/.bin", "~/.pyenv/shims", "~/.pyenv/bin", "~/.rbenv/shims",
     "~/.rbenv/bin", "~/.asdf/shims", "~/.local/share/mise/shims", "~/.cargo/bin", "~/go/bin",
     "~/.go/bin", "~/.npm-global/bin", "~/.npm/bin", "~/.bun/bin", "~/.deno/bin",
     "~/.volta/bin", "~/.local/share/pnpm", "~/.yarn/bin",
     "~/.config/yarn/global/node_modules/.bin",
     "~/.poetry/bin", "~/.dotnet/tools", "~/.nix-profile/bin", "~/.krew/bin", "~/.fly/bin",
     "~/.rd/bin", "~/.docker/bin", "~/.linuxbrew/bin", "/home/linuxbrew/.linuxbrew/bin",
     "/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/bin", "/usr/sbin", "/sbin",
     "/opt/homebrew/bin", "/opt/local/bin", "/snap/bin"}
)  # fmt: skip
# Version managers keep a bin folder per version: `~/.nvm/versions/node/v20/bin`.
_VERSIONED_BIN = ("~/.nvm/versions/", "~/.local/share/fnm/", "~/.sdkman/candidates/")
# Programs the owner and the agents run without a path: a shim there runs in their place.
_SHADOWED = frozenset(
    {"git", "ssh", "scp", "sudo", "su", "ls", "cd", "cat", "cp", "mv", "rm", "ps", "kill",
     "python", "python3", "pip", "pip3", "node", "npm", "npx", "yarn", "pnpm", "bash", "sh", "zsh",
     "make", "curl", "wget", "docker", "kubectl", "gh", "gpg", "env", "which", "id", "passwd",
     "cargo", "rustc", "rustup", "go", "ruby", "gem", "bundle", "java", "mvn", "gradle", "uv",
     "poetry", "code", "vim", "vi", "nano", "less", "grep", "find", "tar", "systemctl",
     "redline", "claude", "codex", "gemini", "hermes", "bun", "deno", "php", "composer", "perl",
     "lua", "sed", "awk", "xargs", "ssh-add", "ssh-agent", "sftp", "rsync", "chmod", "chown",
     "mkdir", "head", "tail", "sort", "touch", "tee", "dd", "mount", "terraform", "aws",
     "gcloud", "az", "helm", "pytest", "tox", "pipx", "dotnet", "swift", "clang", "gcc", "cc",
     "ld", "top", "htop", "crontab", "login", "doas", "pkexec", "openssl", "nc", "ncat"}
)  # fmt: skip
_COPIERS = frozenset({"ln", "cp", "install", "mv", "rsync"})
# Scratch folders anyone may write: a program there is not the installed one.
_TEMP = ("/tmp/", "/var/tmp/", "/dev/shm/")  # noqa: S108


def _on_path(folder: str) -> bool:
    if folder in _PATH_DIRS:
        return True
    return folder.endswith("/bin") and folder.startswith(_VERSIONED_BIN)


def shim_written(inv: Invocation, path: str) -> bool:
    """`path` (canonical, home-relative) written by `inv` puts another
    program in the place of one on PATH: a copy, a link, a download or a
    written script named `git` in `~/.local/bin`; or, when `path` is such a
    folder, the files copied or linked into it (`ln -st ~/.local/bin x/git`)."""
    if inv.name == "busybox":
        return _on_path(path)
    if "bin" not in path and "shims" not in path and "pnpm" not in path and "tools" not in path:
        return False  # every PATH folder here names one of these: most writes are elsewhere
    sources = _sources(inv)
    if _on_path(path.rstrip("/")) and inv.name in _COPIERS:
        named = [(w.value.rstrip("/").rsplit("/", 1)[-1], w.value) for w in sources]
    else:
        folder, _, name = path.rpartition("/")
        if not _on_path(folder):
            return False
        named = [(name, w.value) for w in sources] or [(name, "")]
    for name, source in named:
        if name not in _SHADOWED:
            continue
        if inv.name not in _COPIERS or not _same_program(name, source, inv.cwd):
            return True
    return False


def _sources(inv: Invocation) -> list[Word]:
    """What a copier copies or links: its operands but the destination."""
    if inv.name not in _COPIERS:
        return []
    operands = list(inv.options.operands)
    target = next((v for k, v in inv.options.values if k == "target-directory"), None)
    if target is None and "t" in inv.options.short and operands:
        return operands[1:]  # `-t DIR SRC...`: the folder is read as the first operand
    return operands if target is not None else operands[:-1]


def _same_program(name: str, source: str, cwd: str | None) -> bool:
    """`~/.local/bin/python` -> `/usr/bin/python3`, `node` -> `node-v20/bin/node`:
    the program under its own name, from a place that is not a scratch folder."""
    base = source.rstrip("/").rsplit("/", 1)[-1]
    if not base.startswith(name) or DYNAMIC in source:
        return False
    where = paths.normalize(source, cwd) or ""
    return not where.startswith(_TEMP)
