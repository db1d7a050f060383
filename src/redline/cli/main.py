"""Parse the command line and dispatch to the subcommand's module.

`hook` (once per tool call) and a plain `check` are dispatched before
argparse is imported: each reads its own arguments and hands anything it is
not sure of (help, errors) back to the argparse parser built here.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from redline.cli import exitcodes

TYPE_CHECKING = False  # not `typing`'s: `hook`, `run` and `check` start without it (ADR 0004)
if TYPE_CHECKING:
    import argparse
    from typing import Any

# Each module defines `add_parser(subparsers)`; it is imported only when its
# subcommand runs, so `redline check` starts without loading the rest.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "check": ("redline.cli.check", "explain the verdict for a command or tool call"),
    "log": ("redline.cli.log", "show, verify and export the approval log"),
    "policy": ("redline.cli.policy", "lint a policy file or run its examples"),
    "hook": ("redline.cli.hook", "the hook an agent runs before each tool call"),
    "install": ("redline.cli.install", "wire redline into an agent's hook configuration"),
    "uninstall": ("redline.cli.install", "remove what `redline install` added"),
    "doctor": ("redline.cli.doctor", "say which agents are wired up and whether the hook runs"),
    "serve": ("redline.cli.serve", "run the approval service that holds asked calls"),
    "pending": ("redline.cli.pending", "list the calls waiting for your approval"),
    "approve": ("redline.cli.pending", "approve a held call"),
    "reject": ("redline.cli.pending", "reject a held call"),
    "pair": ("redline.cli.pair", "pair your Telegram chat or log in to the web page"),
    "propose": ("redline.cli.propose", "propose an action only the owner can approve"),
    "run": ("redline.cli.run", "judge a command, then run it sandboxed with secrets scrubbed"),
    "agents": ("redline.cli.agents", "add, list or revoke agents on other machines"),
    "senders": ("redline.cli.senders", "pair, list and revoke messaging senders of a gateway"),
    "opinion": ("redline.cli.opinion", "how the second opinion did: `redline opinion report`"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    import argparse
    import importlib

    parser = argparse.ArgumentParser(
        prog="redline",
        description="An approval gate for AI agents.",
        epilog=exitcodes.epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_lazy_version(argparse), help="show the version")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_name)
        module.add_parser(sub, name, help_text)
    return parser


def _lazy_version(argparse: Any) -> Any:
    """argparse's `version` action, reading the package metadata (~50 ms of
    `importlib.metadata`) only when `--version` is given."""

    class LazyVersion(argparse.Action):  # type: ignore[misc]
        def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
            super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

        def __call__(self, parser: Any, *_: Any) -> None:
            print(f"redline {version()}")
            parser.exit()

    return LazyVersion


def version() -> str:
    """This redline's version, from the installed package's metadata."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("redline")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def unknown_command(word: str) -> str | None:
    """The error for a mistyped subcommand, with the closest one; `None` if
    `word` is not meant as a subcommand (an option, or a known name)."""
    if not word or word.startswith("-") or word in SUBCOMMANDS:
        return None
    import difflib

    close = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.6)
    hint = f"did you mean `{close[0]}`?" if close else "see `redline --help`"
    return f"redline: unknown command `{word}`; {hint}"


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["hook"]:  # once per tool call: no argparse
        from redline.cli.hook import fast_main, wants_help

        if wants_help(args_list[1:]):
            return _run(args_list)

        code = fast_main(args_list[1:])
        if argv is None:  # the `redline` console script: a real hook process
            from redline.__main__ import _hook_exit

            _hook_exit(code)
        return code
    if argv is None and args_list[:1] == ["check"]:
        return _check_process(args_list)
    if args_list[:1] == ["run"]:  # once per command: no argparse
        run_code = _fast_run(args_list[1:], whole_process=argv is None)
        if run_code is not None:
            return run_code
    try:
        return _run(args_list)
    except BrokenPipeError:
        # The reader went away (`redline log show | head`): say nothing more,
        # and let the exit code say the output was cut short.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return exitcodes.ERROR


def _check_process(args_list: list[str]) -> int:
    """`redline check ...` from the console script: a process of its own,
    started once per question, so it starts and ends as a hook does (ADR
    0004): its modules come from the image, which it rewrites once its answer
    is out; no cyclic collection while the gate loads (they free nothing,
    ~1.5 ms); and no interpreter teardown after the answer (~3 ms for the
    modules a check loads): the process ends with `os._exit`. A batch turns
    collection back on (`cli.check`). An error or `SystemExit` ends the
    process as usual."""
    import gc
    import os

    from redline.__main__ import _save_image, _serve_from_image

    gc.disable()
    _serve_from_image()
    try:
        code = main(args_list)
    finally:
        delivered = _flush()
        _save_image()
    os._exit(code if delivered else exitcodes.ERROR)


def _flush() -> bool:
    """Whether what was written reached stdout and stderr (the reader may have gone)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - the exit code reports it
        return False
    return True


def _fast_run(args: list[str], *, whole_process: bool) -> int | None:
    """`redline run` without argparse (`None`: argparse reads the line); as
    the console script, started and ended as `python -m redline run` is."""
    if not whole_process:  # called in-process (tests): no image, no `os._exit`
        from redline.cli.run import fast_main

        return fast_main(args)
    from redline.__main__ import _hook_exit, fast_run

    code = fast_run(args)
    if code is not None:
        _hook_exit(code)
    return code


def _run(args_list: list[str]) -> int:
    if args_list[:1] not in (["install"], ["uninstall"]):  # they write the agents' files
        import os

        os.umask(0o077)  # what redline writes (the log, its state) is the owner's alone
    if args_list[:1] == ["check"]:
        from redline.cli.check import run
        from redline.cli.checkargs import fast_args, normalize

        args_list = ["check", *normalize(args_list[1:])]
        fast = fast_args(args_list[1:])
        if fast is not None:
            return run(fast)
    mistyped = unknown_command(args_list[0]) if args_list else None
    if mistyped is not None:
        print(mistyped, file=sys.stderr)
        return exitcodes.USAGE
    wanted = args_list[0] if args_list and args_list[0] in SUBCOMMANDS else None
    parser = build_parser(only=wanted)
    args = parser.parse_args(args_list)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return exitcodes.USAGE
    code: int = handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
