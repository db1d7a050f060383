"""Which files a tool runs later, and the format their commands are in.

A path is told by its name and the folders it sits in, as the tools that run
it find it: `make` reads `Makefile`, GitHub runs `.github/workflows/*.yml`,
git runs `.git/hooks/NAME`, cron runs `/etc/cron.d/*`.
"""

from __future__ import annotations

# Format names, one per way of reading a file's commands.
MAKE = "make"
JUST = "just"
TASKFILE = "taskfile"
PACKAGE_JSON = "package-json"
PYTHON = "python"  # setup.py, noxfile.py: code whose shell calls run
PYPROJECT = "pyproject"
TOX = "tox"
SHELL = "shell"  # shell scripts, git hooks, .envrc
PRE_COMMIT = "pre-commit"
GITHUB = "github"
GITLAB = "gitlab"
CIRCLECI = "circleci"
AZURE = "azure"
JENKINS = "jenkins"
DOCKERFILE = "dockerfile"
VSCODE_TASKS = "vscode-tasks"
CRONTAB = "crontab"
SYSTEM_CRONTAB = "system-crontab"  # with a user field before the command
LEFTHOOK = "lefthook"  # git hooks as YAML: each command's `run`
UNIT = "unit"  # systemd units and desktop entries: their `Exec*=` lines
# Configurations and build files whose settings run commands (`git_config`,
# `package_rc`, `cmake_lists`, `native_builds`).
GIT_CONFIG = "git-config"
NPMRC = "npmrc"
YARNRC = "yarnrc"
GYP = "gyp"
CMAKE = "cmake"
MESON = "meson"
PYTHON_TASKS = "python-tasks"  # invoke's tasks.py, fabric's fabfile.py
COMPOSE = "compose"  # each service as the `docker run` it amounts to (`docker compose up`)
RUBY = "ruby"  # Rakefile, `*.rake`, Gemfile, gemspec: Ruby code (rake's `sh` too)
RUST_BUILD = "rust-build"  # `build.rs`: Cargo runs it on every build
CARGO_CONFIG = "cargo-config"  # `.cargo/config.toml`: runners and rustc wrappers
GRADLE = "gradle"  # `build.gradle(.kts)`, `settings.gradle(.kts)`: Exec tasks
MAVEN = "maven"  # `pom.xml`: the exec and antrun plugins
COMPOSER = "composer"  # `composer.json` scripts
DENO = "deno"  # `deno.json` tasks

# A copy kept aside (`Makefile.bak`) is not what `make` or an `include` reads.
_KEPT_COPIES = (".bak", ".orig", ".old", ".rej", ".swp", "~", ".sample", ".example")

_BY_NAME = {
    "makefile": MAKE, "gnumakefile": MAKE, "justfile": JUST, ".justfile": JUST,
    "taskfile.yml": TASKFILE, "taskfile.yaml": TASKFILE, "taskfile.dist.yml": TASKFILE,
    "taskfile.dist.yaml": TASKFILE, "package.json": PACKAGE_JSON, "setup.py": PYTHON,
    "noxfile.py": PYTHON, "conftest.py": PYTHON, "pyproject.toml": PYPROJECT, "tox.ini": TOX,
    ".envrc": SHELL, ".pre-commit-config.yaml": PRE_COMMIT, ".pre-commit-config.yml": PRE_COMMIT,
    ".gitlab-ci.yml": GITLAB, ".gitlab-ci.yaml": GITLAB, "azure-pipelines.yml": AZURE,
    "azure-pipelines.yaml": AZURE, "jenkinsfile": JENKINS, "crontab": CRONTAB,
    "lefthook.yml": LEFTHOOK, "lefthook.yaml": LEFTHOOK, ".lefthook.yml": LEFTHOOK,
    ".lefthook.yaml": LEFTHOOK, "lefthook-local.yml": LEFTHOOK, "lefthook-local.yaml": LEFTHOOK,
    "compose.yaml": COMPOSE, "compose.yml": COMPOSE, "docker-compose.yaml": COMPOSE,
    "docker-compose.yml": COMPOSE, "rakefile": RUBY, "rakefile.rb": RUBY, "gemfile": RUBY,
    "build.rs": RUST_BUILD, "build.gradle": GRADLE, "build.gradle.kts": GRADLE,
    "settings.gradle": GRADLE, "settings.gradle.kts": GRADLE, "pom.xml": MAVEN,
    "composer.json": COMPOSER, "deno.json": DENO, "deno.jsonc": DENO,
}  # fmt: skip
# Units systemd starts, and entries a desktop session autostarts.
_UNIT_SUFFIXES = (".service", ".socket", ".path", ".timer")
_SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh", ".command")


_CONFIG_BY_NAME = {
    ".gitconfig": GIT_CONFIG, ".gitmodules": GIT_CONFIG, ".npmrc": NPMRC, "npmrc": NPMRC,
    ".yarnrc.yml": YARNRC,
    ".yarnrc.yaml": YARNRC, ".yarnrc": YARNRC, "binding.gyp": GYP, "cmakelists.txt": CMAKE,
    "meson.build": MESON, "meson_options.txt": MESON, "tasks.py": PYTHON_TASKS,
    "fabfile.py": PYTHON_TASKS, "hatch_build.py": PYTHON,
}  # fmt: skip


def format_of(path: str) -> str | None:
    """The format of the commands in the file at `path`, if a tool runs it later."""
    lowered = path.lower()
    name = lowered.rsplit("/", 1)[-1]
    found = _BY_NAME.get(name) or _config_format(lowered, name)
    if found is not None:
        if found == CRONTAB and lowered.startswith("/etc/"):
            return SYSTEM_CRONTAB
        return found
    if (
        name.endswith((".mk", ".mak"))
        or (name.startswith("makefile.") and not name.endswith(_KEPT_COPIES))
        or name == "bsdmakefile"
    ):
        return MAKE  # included makefiles, `Makefile.am`/`.in` (automake copies their rules)
    if name.endswith(".just"):
        return JUST  # a module (`mod.just`, `tools.just`) or an imported file
    if name.endswith((".rake", ".gemspec")):
        return RUBY
    if name.endswith((".gradle", ".gradle.kts")):
        return GRADLE  # init scripts and included build logic
    if name in ("config.toml", "config") and lowered.endswith(
        (".cargo/config.toml", ".cargo/config")
    ):
        return CARGO_CONFIG
    if name.endswith((".yml", ".yaml")):
        if name.startswith(("docker-compose.", "compose.")):  # `docker-compose.prod.yml`
            return COMPOSE
        if "/.github/workflows/" in lowered or lowered.startswith(".github/workflows/"):
            return GITHUB
        if lowered.endswith(".circleci/config.yml"):
            return CIRCLECI
    if name == "tasks.json" and lowered.endswith(".vscode/tasks.json"):
        return VSCODE_TASKS
    if name == "dockerfile" or name.startswith("dockerfile.") or name.endswith(".dockerfile"):
        return DOCKERFILE
    if name.startswith("jenkinsfile"):
        return JENKINS
    if lowered.startswith(("/etc/cron.d/", "/etc/crontab")):
        return SYSTEM_CRONTAB
    if lowered.startswith("/var/spool/cron/") or name.endswith(".crontab"):
        return CRONTAB
    if (name.endswith(_UNIT_SUFFIXES) and "/systemd/" in lowered) or (
        name.endswith(".desktop") and "/autostart/" in lowered
    ):
        return UNIT
    if name.endswith(_SHELL_SUFFIXES) or is_git_hook(lowered):
        return SHELL
    return None


def _config_format(path: str, name: str) -> str | None:
    """Git's configuration files, package managers' and build systems'."""
    found = _CONFIG_BY_NAME.get(name)
    if found is not None:
        return found
    if name.endswith(".cmake"):
        return CMAKE
    if name in ("config", "config.worktree") and (path.startswith(".git/") or "/.git/" in path):
        return GIT_CONFIG  # also a submodule's `.git/modules/NAME/config`
    if (name == "config" and path.endswith(("/git/config", ".git/config"))) or (
        path == "/etc/gitconfig"
    ):
        return GIT_CONFIG  # also a bare repository's `NAME.git/config`
    if name.startswith(".gitconfig"):
        return GIT_CONFIG  # `.gitconfig.local` and the like, included by `include.path`
    return None


def is_git_hook(path: str) -> bool:
    """A git hook: `.git/hooks/NAME`, or a `core.hooksPath` folder's (`.githooks/NAME`)."""
    head, _, name = path.rpartition("/")
    if not name or name.endswith(".sample"):
        return False
    folder = head.rsplit("/", 1)[-1]
    if folder == "_" and head.endswith(".husky/_"):
        return True  # husky 9 points `core.hooksPath` at `.husky/_`
    return (folder == "hooks" and head.endswith(".git/hooks")) or folder in (".githooks", ".husky")


def runs_unnamed(path: str) -> bool:
    """A shell file a tool runs without being told its name: a git hook, `.envrc`."""
    lowered = path.lower()
    return lowered.rsplit("/", 1)[-1] == ".envrc" or is_git_hook(lowered)


# Names that tell, by the file in a folder, that a tool runs the folder's files.
_PROBES = ("pre-commit", "ci.yml", "x.service", "x.desktop", "tasks.json")
_HOLDERS = frozenset({".git", ".github", ".circleci", ".vscode"})


def holds_later(folder: str) -> bool:
    """A folder whose files a tool runs later (`.git/hooks`, `.github/workflows`,
    a systemd or cron folder), or holds such folders (`.git`, `.github`)."""
    lowered = folder.lower().rstrip("/")
    if lowered.rsplit("/", 1)[-1] in _HOLDERS:
        return True
    return any(format_of(f"{lowered}/{probe}") is not None for probe in _PROBES)


def runs_unseen(path: str) -> bool:
    """A file a tool runs on its own (`.sh` scripts run only when named: left out)."""
    kind = format_of(path)
    return kind is not None and (kind != SHELL or runs_unnamed(path))
