"""Programs whose subcommand runs another command (F-SHELL-2, F-SHELL-3).

`docker exec C cmd`, `kubectl exec P -- cmd`, `tmux new 'cmd'`, `screen -dm
cmd`, `git rebase --exec 'cmd'`, `git -c alias.x='!cmd'`, `env -S 'cmd'`,
`echo cmd | at now`: each gives back the argv or the script that will run.
"""

from __future__ import annotations

from redline.fasttuple import NamedTuple
from redline.shell import embedded, python_launchers, run_carriers, runners
from redline.shell.carriers import VALUE_FLAGS, interpreter_family
from redline.shell.invocation import Invocation
from redline.shell.model import Word
from redline.shell.run_options import skip_options as _skip_options

TYPE_CHECKING = False  # not `typing`'s: kept off the hook's start (ADR 0004)
if TYPE_CHECKING:
    from redline.shell.bind_mounts import Mounts


class Launch(NamedTuple):
    label: str
    argv: tuple[Word, ...] = ()
    script: str | None = None
    # Runs somewhere else: a container, a pod.
    remote: bool = False
    # The host paths a container sees (`docker run -v ~:/h`).
    mounts: Mounts | None = None


_CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl"})
# `compose.COMPOSE_PROGRAMS`, known without loading the compose reader.
_COMPOSE_PROGRAMS = frozenset({"docker-compose", "podman-compose"})
_CONTAINER_VALUE_OPTS = frozenset(
    [
        "-e",
        "--env",
        "--env-file",
        "-u",
        "--user",
        "-w",
        "--workdir",
        "-v",
        "--volume",
        "-p",
        "--publish",
        "--name",
        "--network",
        "--net",
        "--entrypoint",
        "--mount",
        "-m",
        "--memory",
        "--cpus",
        "-l",
        "--label",
        "--add-host",
        "--device",
        "--cap-add",
        "--cap-drop",
        "-h",
        "--hostname",
        "--platform",
        "--pull",
        "--restart",
        "--security-opt",
        "--ulimit",
        "--tmpfs",
        "--shm-size",
        "--gpus",
        "--log-driver",
        "--log-opt",
        "--ipc",
        "--pid",
        "--cidfile",
        "--dns",
        "--expose",
        "--link",
        "--volumes-from",
        "--runtime",
        "--stop-signal",
        "--stop-timeout",
        "--userns",
        "--uts",
        "--cgroupns",
        "--detach-keys",
        "-c",
        "--context",
        "-H",
        "--host",
        "--config",
        "--log-level",
    ]
)
_TMUX_RUNNERS = frozenset(
    {"new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane",
     "respawnp", "respawn-window", "respawnw", "run-shell", "run", "display-popup", "popup"}
)  # fmt: skip
_TMUX_VALUE_OPTS = frozenset(
    {"-s", "-n", "-t", "-c", "-e", "-x", "-y", "-F", "-l", "-p", "-S", "-L", "-f"}
)
_TMUX_KEYS = frozenset({"Enter", "C-m", "KPEnter", "Escape", "C-c", "C-d", "Tab", "Space"})
_GIT_FILTERS = frozenset(
    {"--tree-filter", "--index-filter", "--msg-filter", "--env-filter", "--commit-filter",
     "--parent-filter", "--tag-name-filter"}
)  # fmt: skip


def launches(inv: Invocation) -> list[Launch]:
    found = _launches(inv)
    more = run_carriers.runs(inv)
    return found + [Launch(r.label, r.argv, r.script) for r in more] if more else found


def _launches(inv: Invocation) -> list[Launch]:
    name = inv.name
    if name in _CONTAINER_TOOLS:
        return _container(inv)
    if name == "kubectl":
        return _kubectl(inv)
    if name in _COMPOSE_PROGRAMS:
        return _compose(inv, inv.values)
    if name == "tmux":
        return _tmux(inv)
    if name == "screen":
        return _screen(inv)
    if name == "git":
        return _git(inv)
    if name == "env":
        return _env_split(inv)
    if name in ("at", "batch") and inv.stdin_text:
        return [Launch(f"{name} job", script=inv.stdin_text)]
    if name.startswith(("python", "pypy")) and interpreter_family(name) in ("python", "pypy"):
        return _python_module(inv)
    if name in python_launchers.LAUNCHERS:  # `coverage run -m MOD`, `pyinstrument x.py`
        python = inv.argv[0]._replace(value="python3")
        plain = python_launchers.launched(name, inv.argv[1:], python)
        return [Launch(f"{name} run", argv=plain)] if plain else []
    if name in runners.RUNNERS:
        found = runners.command_of(name, inv.argv)
        if found is not None:
            return [Launch(f"{name} run", argv=found[0], script=found[1])]
    return [Launch(e.label, script=e.script, remote=e.remote) for e in embedded.scripts(inv)]


def _container(inv: Invocation) -> list[Launch]:
    argv = inv.argv
    k = _skip_options(argv, 1, _CONTAINER_VALUE_OPTS)
    if k >= len(argv):
        return []
    verb = argv[k].value
    if verb == "container" and k + 1 < len(argv):
        k, verb = k + 1, argv[k + 1].value
    if verb == "compose":
        inside = _compose_exec(inv, k + 1)
        return inside or _compose(inv, tuple(w.value for w in argv[k + 1 :]))
    if verb not in ("exec", "run"):
        return []
    options = k + 1
    k = _skip_options(argv, options, _CONTAINER_VALUE_OPTS)
    inner = argv[k + 1 :]  # past the container or image
    entrypoint = _entrypoint(argv, options, k) if verb == "run" else None
    if entrypoint is not None:
        inner = (entrypoint, *inner)
    if not inner:
        return []
    mounts = None
    if verb == "run":
        from redline.shell import bind_mounts  # only for `docker run`

        mounts = bind_mounts.run_mounts(argv, options, k, inv.cwd)
    return [Launch(f"{inv.name} {verb}", argv=inner, remote=True, mounts=mounts)]


def _entrypoint(argv: tuple[Word, ...], start: int, end: int) -> Word | None:
    """`--entrypoint rm IMAGE -rf /h`: the program the image's arguments go to."""
    for k in range(start, end):
        value = argv[k].value
        if value == "--entrypoint" and k + 1 < end:
            return argv[k + 1] if argv[k + 1].value else None
        if value.startswith("--entrypoint=") and len(value) > len("--entrypoint="):
            return argv[k]._replace(value=value[len("--entrypoint=") :])
    return None


# `docker compose` options before its verb, and `exec`/`run` options, that take a value.
_COMPOSE_VALUES = frozenset(
    {"-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory",
     "--ansi", "--progress", "--parallel", "--index", "--name", "--entrypoint", "-l", "--label",
     "--pull", "--cap-add", "--cap-drop"}
) | _CONTAINER_VALUE_OPTS  # fmt: skip


def _compose_exec(inv: Invocation, start: int) -> list[Launch]:
    """`docker compose exec SERVICE CMD`, `docker compose run SERVICE CMD`: the
    command runs in the service's container (its mounts are the file's)."""
    argv = inv.argv
    k = _skip_options(argv, start, _COMPOSE_VALUES)
    if k >= len(argv) or argv[k].value not in ("exec", "run"):
        return []
    verb = argv[k].value
    k = _skip_options(argv, k + 1, _COMPOSE_VALUES)
    inner = argv[k + 1 :]  # past the service
    return [Launch(f"{inv.name} compose {verb}", argv=inner, remote=True)] if inner else []


def _compose(inv: Invocation, values: tuple[str, ...]) -> list[Launch]:
    """`docker compose -f - up <<EOF`: the services of the text it reads."""
    from redline.shell import compose  # only for compose commands

    files, verb, rest = compose.compose_words(values)
    if verb not in compose.STARTS or not inv.stdin_text:
        return []
    if not set(files) & {"-", "/dev/stdin"}:
        return []
    lines = compose.run_lines(inv.stdin_text, verb, rest)
    return [Launch(f"{inv.name} compose", script=lines)] if lines else []


def _kubectl(inv: Invocation) -> list[Launch]:
    values = [w.value for w in inv.argv]
    pods = _kubectl_pods(inv, values)
    if pods:
        return [Launch("kubectl pod", script=pods)]
    if "exec" not in values or "--" not in values:
        return []
    inner = inv.argv[values.index("--") + 1 :]
    return [Launch("kubectl exec", argv=inner, remote=True)] if inner else []


def _kubectl_pods(inv: Invocation, values: list[str]) -> str:
    """The pods `kubectl run --overrides=JSON` or `kubectl apply -f -` starts."""
    from redline.shell import kube_pods  # only for `kubectl`

    verbs = [v for v in values[1:3] if not v.startswith("-")]
    if verbs[:1] == ["run"]:
        end = values.index("--") if "--" in values else len(values)
        given = dict(_option_values(values[:end], ("--image", "--overrides")))
        if "--overrides" not in given:
            return ""
        command = tuple(values[end + 1 :])
        return kube_pods.overrides_lines(given["--overrides"], given.get("--image", ""), command)
    if verbs[:1] in (["apply"], ["create"], ["replace"]) and inv.stdin_text:
        files = [v for _, v in _option_values(values, ("-f", "--filename"))]
        if set(files) & {"-", "/dev/stdin"}:
            return kube_pods.manifest_lines(inv.stdin_text)
    return ""


def _option_values(values: list[str], names: tuple[str, ...]) -> list[tuple[str, str]]:
    """`--name=VALUE` and `--name VALUE` for the given names."""
    found = []
    for k, value in enumerate(values):
        option, eq, attached = value.partition("=")
        if option in names:
            given = attached if eq else (values[k + 1] if k + 1 < len(values) else "")
            found.append((option, given))
    return found


def _tmux(inv: Invocation) -> list[Launch]:
    argv = inv.argv
    k = _skip_options(argv, 1, _TMUX_VALUE_OPTS)
    if k >= len(argv):
        return []
    verb = argv[k].value
    if verb in ("send-keys", "send"):
        rest = argv[_skip_options(argv, k + 1, _TMUX_VALUE_OPTS) :]
        keys = [w.value for w in rest if w.value not in _TMUX_KEYS]
        return [Launch("tmux send-keys", script=" ".join(keys))] if keys else []
    if verb not in _TMUX_RUNNERS:
        return []
    rest = argv[_skip_options(argv, k + 1, _TMUX_VALUE_OPTS) :]
    if not rest:
        return []
    if len(rest) == 1:
        return [Launch(f"tmux {verb}", script=rest[0].value)]
    return [Launch(f"tmux {verb}", argv=rest)]


def _screen(inv: Invocation) -> list[Launch]:
    argv = inv.argv
    k = 1
    while k < len(argv) and argv[k].value.startswith("-"):
        value = argv[k].value
        if value == "-X" and k + 2 < len(argv) and argv[k + 1].value == "stuff":
            return [Launch("screen stuff", script=argv[k + 2].value)]
        # A flag group ending in a letter that takes a value (`-dmS name`) takes it.
        k += 2 if value[-1] in "ScptThe" and not value.startswith("--") else 1
    inner = argv[k:]
    return [Launch("screen", argv=inner)] if inner else []


def _git(inv: Invocation) -> list[Launch]:
    argv = inv.argv
    found: list[Launch] = []
    for k, word in enumerate(argv[1:], 1):
        value = word.value
        following = argv[k + 1].value if k + 1 < len(argv) else None
        if value == "-c" and following:
            key, _, command = following.partition("=")
            key = key.lower()
            if key.startswith("alias.") and command.startswith("!"):
                found.append(Launch("git alias", script=command[1:]))
            elif command and runs_command(key):
                found.append(Launch(f"git -c {key}", script=command.removeprefix("!")))
        elif (value in ("--exec", "-x") or value in ("--exe",)) and following is not None:
            found.append(Launch("git rebase --exec", script=following))
        elif value.startswith(("--exec=", "--exe=")):
            found.append(Launch("git rebase --exec", script=value.partition("=")[2]))
        elif value in _GIT_FILTERS and following is not None:
            found.append(Launch(f"git filter-branch {value}", script=following))
        elif value == "foreach" and k + 1 < len(argv):
            start = k + 1  # past foreach's own options: `--recursive`, `--quiet`
            while start < len(argv) and _foreach_option(argv[start].value):
                start += 1
            script = " ".join(w.value for w in argv[start:])
            found.append(Launch("git submodule foreach", script=script))
        elif value == "run" and k >= 2 and argv[k - 1].value == "bisect" and k + 1 < len(argv):
            found.append(Launch("git bisect run", argv=argv[k + 1 :]))
    return found


def _foreach_option(value: str) -> bool:
    """`--recursive`, `--quiet`, `-q`, or a prefix git takes for one (`--rec`)."""
    return value == "-q" or (len(value) > 2 and any(o.startswith(value) for o in _FOREACH))


_FOREACH = ("--recursive", "--quiet")
# Configuration keys whose value git hands to the shell as a command.
_GIT_COMMAND_KEYS = frozenset(
    {"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.askpass",
     "sequence.editor", "diff.external", "gpg.program", "gpg.ssh.program", "gpg.x509.program",
     "credential.helper", "uploadpack.packobjectshook", "merge.tool", "diff.tool"}
)  # fmt: skip
_GIT_COMMAND_SUFFIXES = (".cmd", ".textconv", ".clean", ".smudge", ".process", ".command")


def runs_command(key: str) -> bool:
    if key in _GIT_COMMAND_KEYS or key.startswith("pager."):
        return True
    return key.startswith(
        ("filter.", "diff.", "mergetool.", "difftool.", "merge.", "browser.", "man.")
    ) and (key.endswith(_GIT_COMMAND_SUFFIXES))


def _env_split(inv: Invocation) -> list[Launch]:
    """`env -S 'CMD'`, also bundled or attached: `-iS CMD`, `-S"CMD"`, `--split-string=CMD`."""
    argv = inv.argv
    for k, word in enumerate(argv[1:], 1):
        value = word.value
        if value.startswith("--split-string="):
            return [Launch("env -S", script=value.partition("=")[2])]
        if value == "--split-string":
            value = "-S"
        elif not value.startswith("-") or value.startswith("--"):
            if "=" in value or value.startswith("--"):
                continue  # an assignment or a long option
            return []  # the command: options end here
        letters = value[1:]
        for i, letter in enumerate(letters):
            if letter == "S":
                attached = letters[i + 1 :]
                rest = " ".join(w.value for w in argv[k + 1 :])
                if attached:
                    return [Launch("env -S", script=(attached + " " + rest).strip())]
                if k + 1 < len(argv):
                    following = " ".join(w.value for w in argv[k + 2 :])
                    return [Launch("env -S", script=(argv[k + 1].value + " " + following).strip())]
                return []
            if letter in "uC":
                break  # takes a value: the rest of the group, or the next word
    return []


# Modules that are programs too: `python -m pip install x` is `pip install x`.
_MODULE_PROGRAMS = {
    "pip": "pip", "pip3": "pip", "twine": "twine", "flit": "flit", "hatch": "hatch",
    "poetry": "poetry", "uv": "uv", "pipx": "pipx", "pdm": "pdm", "pytest": "pytest",
    "awscli": "aws", "ansible": "ansible", "conda": "conda", "virtualenv": "virtualenv",
    "django": "django-admin", "huggingface_hub.commands.huggingface_cli": "huggingface-cli",
}  # fmt: skip


def _python_module(inv: Invocation) -> list[Launch]:
    """`python -m MODULE ARGS`, `python3 -u -mpip ARGS`: a module that is a
    program runs as that program."""
    argv = inv.argv
    takes = VALUE_FLAGS["python"]
    k = 1
    while k < len(argv):
        value = argv[k].value
        if not value.startswith("-") or value in ("-", "--") or value.startswith("--"):
            return []
        letters = value[1:]
        at = next((i for i, ch in enumerate(letters) if ch in takes or ch == "c"), -1)
        if at == -1:
            k += 1
            continue
        if letters[at] == "c":
            return []  # inline code, not a module
        if letters[at] != "m":  # `-W ignore`, `-Wignore`: a value before the module
            k += 1 if letters[at + 1 :] else 2
            continue
        attached = letters[at + 1 :]
        word = argv[k] if attached else (argv[k + 1] if k + 1 < len(argv) else None)
        rest = argv[k + 1 :] if attached else argv[k + 2 :]
        module = attached or (word.value if word is not None else "")
        if module == "timeit":  # its statements and `-s` setup are Python code
            code = python_launchers.timeit_code(tuple(rest), argv[0])
            return [Launch(f"{inv.name} -m timeit", argv=code)] if code else []
        if module == "zipapp":  # an archive whose `__main__` calls the gate's CLI
            entry = python_launchers.zipapp_entry(tuple(rest), argv[0])
            return [Launch(f"{inv.name} -m zipapp", argv=entry)] if entry else []
        if module in python_launchers.LAUNCHERS:  # `python -m runpy redline`, `-m pdb x.py`
            plain = python_launchers.launched(module, tuple(rest), argv[0])
            return [Launch(f"{inv.name} -m {module}", argv=plain)] if plain else []
        program = _MODULE_PROGRAMS.get(module)
        if word is None or program is None:
            return []
        return [Launch(f"{inv.name} -m", argv=(word._replace(value=program), *rest))]
    return []
