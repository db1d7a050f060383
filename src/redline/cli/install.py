"""`redline install AGENT` / `redline uninstall AGENT`: wire redline into an
agent's hook configuration, or take exactly that back out."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from redline.cli import exitcodes

if TYPE_CHECKING:
    from redline.hooks.install import Options

AFTER = {
    "claude-code": "Claude Code reads it at start: restart it. Refusals reach the model as "
    "the tool's error; asks appear in Claude Code's own permission prompt.",
    "codex": "Codex reads it at start: restart it (hooks need a Codex release with hooks on; "
    "Codex runs only hooks it trusts, so the trust is recorded in config.toml; `redline "
    "doctor` asks Codex whether it runs the hook). Refusals reach the model; an ask is "
    "refused with a text saying the owner's approval is needed (unless --defer-ask).",
    "gemini": "Gemini CLI reads it at start: restart it. Refusals reach the model as the "
    "tool's error; asks appear in Gemini CLI's confirmation prompt.",
    "hermes": "Restart Hermes (CLI and gateway). A refusal becomes the tool's result for "
    "the agent; the shell hook cannot ask, so asks are refused as needing approval.",
}


def add_parser(sub: Any, name: str, help_text: str) -> None:
    from redline.hooks.install import HOSTS

    parser: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text)
    parser.add_argument("agent", choices=HOSTS)
    parser.add_argument("--home", metavar="DIR", help="the home directory (default: $HOME)")
    parser.add_argument(
        "--project", metavar="DIR", help="the project's config instead of the user's"
    )
    parser.add_argument(
        "--plugin",
        action="store_true",
        help="hermes: the Python plugin instead of the shell hook (installs redline into "
        "Hermes's own Python, found from the `hermes` script on PATH, and enables it)",
    )
    if name == "install":
        parser.add_argument(
            "--allow-explicit",
            action="store_true",
            help="answer `allow` for allowed calls (unattended use) instead of passing no "
            "opinion to the agent's own permission rules",
        )
        parser.add_argument(
            "--ask", choices=("native", "deny"), default=None, help="`deny` refuses every ask"
        )
        parser.add_argument("--context", help="interactive, gateway, cron or single_query")
        parser.add_argument(
            "--defer-ask",
            action="store_true",
            help="codex: leave asks to Codex's approval prompt, with redline as its "
            "PermissionRequest hook (only when Codex is set to ask)",
        )
        parser.add_argument(
            "--enforce",
            action="store_true",
            help="claude-code, hermes --plugin: every allowed shell command runs under "
            "`redline run` (scrubbed environment, kernel sandbox); see docs/enforce.md",
        )
        parser.add_argument(
            "--record-outcomes",
            action="store_true",
            help="claude-code, codex: also hook PostToolUse, to log asked calls that ran",
        )
        parser.add_argument(
            "--service",
            nargs="?",
            const=True,
            default=False,
            metavar="URL",
            help="the hook asks `redline serve` (held calls wait for your answer), pinning "
            "its public key; the agent's hook timeout is set above the hold timeout. With "
            "https://HOST:PORT (comma-separated replicas): a service on another machine, "
            "with --token from `redline agents add`",
        )
        parser.add_argument(
            "--token", help="with --service URL: this agent's token (`redline agents add`)"
        )
        parser.add_argument(
            "--service-ca",
            metavar="FILE",
            help="with --service URL: the CA that signed the service's certificate, "
            "if not one the system trusts",
        )
        parser.add_argument(
            "--service-key",
            metavar="BASE64",
            help="with --service: the key to pin (default: the one `redline serve` wrote "
            "to $REDLINE_HOME/service/signing.pub)",
        )
        parser.add_argument(
            "--hold-timeout",
            type=float,
            metavar="SECONDS",
            help="with --service: the `redline serve --timeout` in use (default "
            "the service's default), from which the agent's hook timeout is derived",
        )
        parser.set_defaults(handler=_install)
    else:
        parser.set_defaults(handler=_uninstall)


PLUGIN_AFTER = (
    "Restart Hermes (CLI and gateway). Asked calls go to Hermes's own approval where it asks "
    "a person (a terminal or a gateway); under `-z`, `--yolo`, `/yolo`, `approvals.mode: off` "
    "or cron they are refused. To have `redline serve` hold them instead, set "
    "REDLINE_SERVICE=1 (and REDLINE_SERVICE_KEY) in Hermes's environment or $HERMES_HOME/.env."
)


def _plugin(args: argparse.Namespace, install: bool) -> int:
    from redline.hooks.install import hermes_plugin

    if args.agent != "hermes":
        print("redline: --plugin is for hermes only", file=sys.stderr)
        return exitcodes.ERROR
    chosen = [a for a in ("allow_explicit", "context", "defer_ask", "service") if vars(args).get(a)]
    if install and (chosen or args.ask or args.record_outcomes or args.service_key):
        print(
            "redline: --plugin takes no hook options but --enforce; the plugin reads "
            "REDLINE_HOOK_ASK, REDLINE_CONTEXT and REDLINE_SERVICE from Hermes's environment",
            file=sys.stderr,
        )
        return exitcodes.ERROR
    enforce = install and args.enforce
    if install:
        code = _apply(
            lambda: hermes_plugin.install(home=args.home, project=args.project, enforce=enforce)
        )
    else:
        code = _apply(lambda: hermes_plugin.uninstall(home=args.home, project=args.project))
    if code == exitcodes.ALLOW and install:
        if enforce:
            print(_enforce_note())
        print(PLUGIN_AFTER)
        print("Check it with `redline doctor`.")
    return code


def _install(args: argparse.Namespace) -> int:
    from redline.hooks.install import Options, install, resolve_service

    if args.plugin:
        return _plugin(args, install=True)

    if not args.service and (args.service_key or args.hold_timeout is not None):
        print("redline: --service-key and --hold-timeout go with --service", file=sys.stderr)
        return exitcodes.ERROR
    from redline.cli.install_remote import RemoteError, set_remote

    try:
        set_remote(args.service, args.token, args.service_key, args.service_ca)
    except RemoteError as error:
        print(f"redline: {error}", file=sys.stderr)
        return exitcodes.ERROR
    options = Options(
        allow_explicit=args.allow_explicit,
        ask_deny=args.ask == "deny",
        context=args.context,
        defer_ask=args.defer_ask,
        record_outcomes=args.record_outcomes,
        service=bool(args.service),
        service_key=args.service_key,
        enforce=args.enforce,
    )
    if args.hold_timeout is not None:
        options = options._replace(hold_timeout_s=args.hold_timeout)
    from redline.hooks.install.files import ConfigError

    try:
        options = resolve_service(options)
    except ConfigError as error:
        print(f"redline: {error}", file=sys.stderr)
        return exitcodes.ERROR
    code = _apply(
        lambda: install(args.agent, home=args.home, project=args.project, options=options)
    )
    if code == exitcodes.ALLOW:
        if args.service:
            print(_service_note(options))
        if args.enforce:
            print(_enforce_note())
        print(AFTER[args.agent])
        print("Check it with `redline doctor`.")
    return code


def _enforce_note() -> str:
    from redline.sandbox.level import probe

    return (
        "Allowed shell commands now run in the sandbox (launched by the hook itself where "
        "bubblewrap can run, else under `redline run`), with a scrubbed environment; sandbox "
        f"{probe().line()}. A `cd` or `export` no longer carries over between commands."
    )


def _service_note(options: Options) -> str:
    from redline.approve.signing import key_id
    from redline.hooks.install.service import read_public_key

    timeout = f"the agent lets the hook run {options.timeout_s()} s"
    hold = f"(held calls wait {options.hold_timeout_s:g} s)"
    if options.service_key:
        from redline.approve.client import pinned_key
        from redline.approve.paths import ServicePaths

        pinned = key_id(pinned_key(ServicePaths(""), options.service_key))
        return f"The hook asks `redline serve` and trusts only key {pinned}; {timeout} {hold}."
    where = read_public_key()[1]
    return (
        f"The hook asks `redline serve`; {timeout} {hold}. No service key at `{where}` yet: "
        "until it is pinned the hook trusts the key the service writes there at its first "
        "start. Start `redline serve`, then run this again to pin it."
    )


def _uninstall(args: argparse.Namespace) -> int:
    from redline.hooks.install import uninstall

    if args.plugin:
        return _plugin(args, install=False)

    return _apply(lambda: uninstall(args.agent, home=args.home, project=args.project))


def _apply(action: Any) -> int:
    from redline.hooks.install.files import ConfigError

    try:
        changes = action()
    except (ConfigError, OSError) as error:
        print(f"redline: {error}", file=sys.stderr)
        return exitcodes.ERROR
    for change in changes:
        saved = f" (previous version kept as {change.backup})" if change.backup else ""
        verb = "updated" if change.changed else "left"
        print(f"{verb} {change.path}: {change.summary}{saved}")
    return exitcodes.ALLOW
