"""Acts that cannot be taken back once others see them, and erasing the
traces of what was done: both are asked (F-RULES-2)."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

# Program -> the subcommand words that publish a release to a public registry.
_PUBLISHERS: dict[str, frozenset[str]] = {
    "npm": frozenset({"publish", "unpublish", "deprecate"}),
    "pnpm": frozenset({"publish"}),
    "yarn": frozenset({"publish", "npm"}),
    "bun": frozenset({"publish"}),
    "cargo": frozenset({"publish", "yank"}),
    "twine": frozenset({"upload"}),
    "poetry": frozenset({"publish"}),
    "flit": frozenset({"publish"}),
    "hatch": frozenset({"publish"}),
    "uv": frozenset({"publish"}),
    "gem": frozenset({"push", "yank"}),
    "mvn": frozenset({"deploy"}),
    "dotnet": frozenset({"nuget"}),
    "vsce": frozenset({"publish"}),
    "helm": frozenset({"push"}),
    "lerna": frozenset({"publish"}),
    "changeset": frozenset({"publish"}),
    "ovsx": frozenset({"publish"}),
    "lein": frozenset({"deploy"}),
    "mix": frozenset({"hex.publish"}),
    "pod": frozenset({"trunk"}),
    "goreleaser": frozenset({"release", ""}),  # a bare `goreleaser` releases
    "sbt": frozenset(),
}
# Package runners whose first word is the tool they run (`npx lerna publish`).
_RUNNERS = frozenset({"npx", "bunx", "pnpx"})


_GRADLES = frozenset({"gradle", "gradlew", "./gradlew"})


def _gradle_publish(task: str) -> bool:
    # `publish`, `:lib:publish`, `publishToMavenCentral`, `publishPlugins`; a
    # publication to the local Maven cache (`publishToMavenLocal`) stays local.
    name = task.rsplit(":", 1)[-1]
    return name.startswith("publish") and not name.endswith("MavenLocal")


def _sbt_publish(task: str) -> bool:
    # `publish`, `+publishSigned`, `core/publish`; `publishLocal` and `publishM2` stay local
    name = task.lstrip("+").rsplit("/", 1)[-1]
    return name.startswith("publish") and name not in ("publishLocal", "publishM2")


def _publish(inv: Invocation, analysis: Analysis) -> bool:
    # `python -m twine upload` comes here as `twine upload` (the shell analysis).
    # Every invocation comes here: its name decides first, before its words are read.
    name = inv.name
    if name in _RUNNERS:
        values = inv.values
        tools = [k for k, v in enumerate(values) if not v.startswith("-")]
        if not tools:
            return False
        name = values[tools[0]].rsplit("/", 1)[-1].partition("@")[0].lower()
        values = values[tools[0] + 1 :]
    elif name in _PUBLISHERS or name in _GRADLES:
        values = inv.values
    else:
        return False
    verbs = _PUBLISHERS.get(name)
    if verbs is None:
        gradle = name in _GRADLES and "-m" not in values and "--dry-run" not in values
        return gradle and any(_gradle_publish(o.value) for o in inv.options.operands)
    if "--dry-run" in values:
        return False
    operands = [v for v in values if not v.startswith("-")]
    if name == "mvn":  # phases and goals in any order: `mvn clean deploy`, `deploy:deploy-file`
        return any(p == "deploy" or p.startswith("deploy:") for p in operands)
    if name == "sbt":
        return any(_sbt_publish(task) for task in operands)
    verb = operands[0].lower() if operands else ""
    if name == "yarn" and verb == "npm":
        return "publish" in values
    if name == "dotnet":
        return verb == "nuget" and "push" in values
    if name == "pod":
        return verb == "trunk" and "push" in values
    if name == "goreleaser":
        local = ("--snapshot", "--skip-publish", "--skip=publish")
        return verb in verbs and not any(v in local for v in values)
    return verb in verbs


_HISTORY_FILES = (".bash_history", ".zsh_history", ".history", ".python_history", ".psql_history")


# The programs `_erase_history` looks at (besides any with a redirect).
_HISTORY_PROGRAMS = frozenset(
    {"history", "unset", "export", "set", "rm", "shred", "truncate", "ln", "cp", "mv"}
)


def _erase_history(inv: Invocation, analysis: Analysis) -> bool:
    name = inv.name
    if name not in _HISTORY_PROGRAMS and not inv.redirects:
        return False  # asked of every invocation: its words stay unread
    values = inv.values
    if name == "history":
        # `-w` writes the history out; `-c` and `-d` erase it
        return bool({"-c", "-d"} & set(values)) or any(v.startswith("-c") for v in values)
    if name in ("unset", "export", "set") and any(
        v == "HISTFILE" or v.startswith(("HISTFILE=", "HISTSIZE=0", "HISTFILESIZE=0")) or v == "+o"
        for v in values
    ):
        return name != "set" or "history" in values
    if name in ("rm", "shred", "truncate", "ln", "cp", "mv") or inv.redirects:
        targets = [*values, *(r.target.value for r in inv.redirects if r.writes and r.target)]
        return any(t.endswith(_HISTORY_FILES) for t in targets)
    return False


PUBLISH_RULES: tuple[Rule, ...] = (
    rule(
        "publish.package-release",
        "publish",
        D,
        "publish a package release to a public registry",
        "ask the owner to publish; a release cannot be taken back once others install it",
        test=_publish,  # every name: `python3.12 -m twine` too
        must_match=(
            "npm publish",
            "npm publish --access public",
            "cargo publish",
            "twine upload dist/*",
            "poetry publish --build",
            "gem push pkg.gem",
            "sudo -u ci npm publish",
            "python3 -m twine upload dist/*",
            "mvn -B -DskipTests clean deploy",
            "./gradlew :lib:publish",
            "gradle publishToMavenCentral",
            "cargo yank --version 1.0.0 mycrate",
            "npx lerna publish from-package --yes",
            "sbt +publishSigned",
            "pod trunk push MyLib.podspec",
            "goreleaser release --clean",
        ),
        must_not_match=(
            "npm publish --dry-run",
            "npm install",
            "cargo build",
            "twine check dist/*",
            "echo npm publish",
            "python -m twine check dist/*",
            "python3 -m http.server",
            "mvn clean install",
            "./gradlew build",
            "gradle publishToMavenLocal",
            "./gradlew publish --dry-run",
            "npx lerna run build",
            "sbt publishLocal",
            "goreleaser release --snapshot --clean",
        ),
    ),
    rule(
        "audit.erase-history",
        "audit",
        D,
        "erase or stop the shell history",
        "leave the shell history alone; it is the owner's record of what ran",
        test=_erase_history,
        must_match=(
            "history -c",
            "unset HISTFILE",
            "export HISTFILE=/dev/null",
            "rm ~/.bash_history",
            "cat /dev/null > ~/.zsh_history",
            "set +o history",
            "export HISTSIZE=0",
        ),
        must_not_match=(
            "history",
            "history 20",
            "export HISTSIZE=10000",
            "cat ~/.bash_history",
            "set -e",
            "history -w",
        ),
    ),
)
