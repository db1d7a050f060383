"""Project and environment runners whose verb runs any command (F-SHELL-2):
`uv run CMD`, `poetry run CMD`, `conda run -n ENV CMD`, `bundle exec CMD`,
`mise exec -- CMD`, `nix develop -c CMD`, `op run -- CMD`...

Each runner is data: the verbs that run a command, the options that take a
value, how many operands come before the command, and whether the command
is a script (`nix-shell --run 'CMD'`) rather than an argv.
"""

from redline.fasttuple import NamedTuple
from redline.shell.model import Word


class Runner(NamedTuple):
    verbs: frozenset[str]
    # Options (as written) that take the next word as their value.
    values: frozenset[str] = frozenset()
    # Operands between the verb and the command: `direnv exec DIR CMD`.
    operands: int = 0
    # The command is whatever follows `--`, when the runner needs one.
    after_dashes: bool = False
    # Options whose value is a command line: `nix-shell --run 'CMD'`.
    script_options: frozenset[str] = frozenset()


def _r(verbs: str, values: str = "", **kwargs: object) -> Runner:
    return Runner(frozenset(verbs.split()), frozenset(values.split()), **kwargs)  # type: ignore[arg-type]


_PY_ENV = "-p --python --with --with-editable --with-requirements --package --extra --group " \
          "--env-file --directory --project --index --index-url --extra-index-url -C " \
          "--config-setting -e --env -E --environment"  # fmt: skip
_CONDA = "-n --name -p --prefix --cwd --live-stream"

RUNNERS: dict[str, Runner] = {
    "uv": _r("run", _PY_ENV),
    # `uvx PKG ARGS` and `pipx run PKG ARGS` fetch a package and run its command.
    "uvx": _r("", _PY_ENV + " --from"),
    "pipx": _r("run", "--spec --python --pip-args --index-url"),
    "poetry": _r("run", "-C --directory -P --project"),
    "pipenv": _r("run", "--python"),
    "pdm": _r("run", "-p --project -v"),
    "hatch": _r("run", "-e --env"),
    "rye": _r("run", "--pyproject"),
    "pixi": _r("run", "-e --environment --manifest-path"),
    "conda": _r("run", _CONDA),
    "mamba": _r("run", _CONDA),
    "micromamba": _r("run", _CONDA),
    "bundle": _r("exec", "--gemfile"),
    "pnpm": _r("exec dlx", "-C --dir --filter --package"),
    # `npx PKG ARGS`, `bunx PKG`, `yarn dlx PKG`: fetch a package and run its command.
    # `-c CMD` is a script (`embedded`): taken as a value, it leaves no argv here.
    "npx": _r("", "-p --package --registry --cache -w --workspace --node-options -c --call"),
    "pnpx": _r("", "-p --package"),
    "bunx": _r("", "-p --package"),
    "yarn": _r("dlx exec", "-p --package --cwd"),
    "npm": _r("exec", "--package -w --workspace", after_dashes=True),
    "direnv": _r("exec", operands=1),
    "mise": _r("exec x", "-C --cd -E --env", after_dashes=True),
    "rtx": _r("exec x", "-C --cd", after_dashes=True),
    "asdf": _r("exec"),
    "rbenv": _r("exec"),
    "pyenv": _r("exec"),
    "nodenv": _r("exec"),
    "devbox": _r("run", "-c --config -e --env"),
    "op": _r("run", "--env-file", after_dashes=True),
    "doppler": _r("run", "-p --project -c --config", after_dashes=True),
    "aws-vault": _r("exec", "-d --duration -r --region", operands=1, after_dashes=True),
    "dotenv": _r("", "-e -c -v", after_dashes=True),
    "nix": _r("develop shell", script_options=frozenset({"-c", "--command"})),
    "nix-shell": _r(
        "",
        "-p --packages -I -A --attr --arg --argstr",
        script_options=frozenset({"--run", "--command"}),
    ),
}


def command_of(name: str, argv: tuple[Word, ...]) -> tuple[tuple[Word, ...], str | None] | None:
    """The argv (or the script) runner `name` runs, or `None` when it runs none."""
    spec = RUNNERS.get(name)
    if spec is None:
        return None
    k, n = 1, len(argv)
    if name == "uv" and n > 2 and argv[1].value == "tool" and argv[2].value == "run":
        return command_of("uvx", argv[2:])  # `uv tool run` is `uvx`
    if spec.verbs:
        # The verb may follow global options: `poetry -C dir run`.
        while k < n and argv[k].value.startswith("-"):
            k += 2 if argv[k].value in spec.values else 1
        if k >= n or argv[k].value not in spec.verbs:
            return None
        k += 1
    if spec.script_options:
        for j in range(k, n - 1):
            if argv[j].value in spec.script_options:
                rest = argv[j + 1 :]
                if name == "nix":  # `nix develop -c CMD ARGS...` is an argv
                    return rest, None
                return (), rest[0].value
        return None  # an interactive shell, or a build
    if spec.after_dashes:
        dashes = next((j for j in range(k, n) if argv[j].value == "--"), -1)
        if dashes != -1:
            return argv[dashes + 1 :], None
    while k < n:
        value = argv[k].value
        if value == "--":
            k += 1
            break
        if not value.startswith("-") or value == "-":
            break
        k += 2 if value in spec.values else 1
    k += spec.operands
    return (argv[k:], None) if k < n else None
