"""Links that shadow a program on PATH (issue 13): `ln -sf /tmp/x
~/.local/bin/git` makes the next `git` anyone types run `/tmp/x`. A shim is
code that runs later, like a written hook; a link named after a program it
points at (`~/.local/bin/python` to `/usr/bin/python3`) is the usual set-up
and passes."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules.model import Rule, rule
from redline.rules.secrets import home_relative
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

# Folders on a usual PATH, ahead of the system's own.
_PATH_DIRS = ("~/.local/bin", "~/bin", "/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/bin",
              "/usr/sbin", "/sbin", "/opt/homebrew/bin")  # fmt: skip
# Programs the owner and the agents run without a path: a shim there runs in their place.
_SHADOWED = frozenset(
    {"git", "ssh", "scp", "sudo", "su", "ls", "cd", "cat", "cp", "mv", "rm", "ps", "kill",
     "python", "python3", "pip", "pip3", "node", "npm", "npx", "yarn", "pnpm", "bash", "sh", "zsh",
     "make", "curl", "wget", "docker", "kubectl", "gh", "gpg", "env", "which", "id", "passwd",
     "cargo", "go", "ruby", "gem", "java", "mvn", "gradle", "uv", "poetry", "code", "vim",
     "nano", "less", "grep", "find", "tar", "systemctl", "redline", "claude", "codex", "gemini"}
)  # fmt: skip


def _shim(inv: Invocation, analysis: Analysis) -> bool:
    operands = inv.options.operands
    if len(operands) < 2 or "t" in inv.options.short or "target-directory" in inv.options.long:
        return False
    link = paths.normalize(operands[-1].value, inv.cwd)
    if link is None or "/" not in link:
        return False
    link = home_relative(link)  # `/home/me/.local/bin/git` as `~/.local/bin/git`
    folder, _, name = link.rpartition("/")
    if folder not in _PATH_DIRS or name not in _SHADOWED:
        return False
    target = operands[0].value.rstrip("/").rsplit("/", 1)[-1]
    # `python` -> `/usr/bin/python3`, `node` -> `node-v20/bin/node`: the same program.
    return not target.startswith(name)


PATH_SHIM_RULES: tuple[Rule, ...] = (
    rule(
        "sensitive.path-shim",
        "sensitive",
        Severity.SENSITIVE,
        "link a program on PATH (`git`, `sudo`, `ssh`...) to another file: it runs in the "
        "program's place later",
        "run the other program by its own name or path; link only a program to its own name",
        programs=("ln",),
        test=_shim,
        must_match=(
            "ln -sf /tmp/x ~/.local/bin/git",
            "ln -s ./evil /usr/local/bin/sudo",
            "ln -sfn /tmp/payload ~/bin/ssh",
        ),
        must_not_match=(
            "ln -sf /usr/bin/python3 ~/.local/bin/python",
            "ln -s ../lib/tool ./bin/tool",
            "ln -sf ~/src/mytool/target/release/mytool ~/.local/bin/mytool",
            "ln -s /opt/node-v20/bin/node /usr/local/bin/node",
        ),
    ),
)
