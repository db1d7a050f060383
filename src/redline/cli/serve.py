"""`redline serve`: the approval service (F-APPROVE-1)."""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import time
from typing import Any

from redline.approve.defaults import HEAD_EVERY_S, HOLD_TIMEOUT_S, HTTP_HOST, HTTP_PORT
from redline.cli import exitcodes


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Run the approval service: hooks connect to its Unix socket in "
        "$REDLINE_HOME/service; held calls wait for the owner's answer.",
    )
    parser.add_argument("--store", help="the log and service database (default: SQLite in home)")
    parser.add_argument("--policy", help="the policy file (default: the configured policy)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=HOLD_TIMEOUT_S,
        help=f"seconds a held call waits (default {HOLD_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        nargs="?",
        const="",
        help="also serve loopback HTTP and the web page; without a port, the policy's "
        f"`approval.port` (default {HTTP_PORT}), which its never-run rule protects",
    )
    parser.add_argument("--agent-group", help="the agent's group, which may use the hook socket")
    parser.add_argument(
        "--agents",
        metavar="[HOST:]PORT",
        help="also take calls from hooks on other machines, each with its agent token "
        "(`redline agents add`); off loopback it needs --tls-cert and --tls-key",
    )
    parser.add_argument("--tls-cert", metavar="FILE", help="with --agents: the certificate chain")
    parser.add_argument("--tls-key", metavar="FILE", help="with --agents: its private key")
    parser.add_argument(
        "--telegram-token-file",
        help="a file holding the Telegram bot token (default: $REDLINE_TELEGRAM_TOKEN)",
    )
    parser.add_argument("--telegram-api", help="the Bot API server's root URL (a local Bot API)")
    parser.add_argument(
        "--telegram-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="each request to the Bot API; a send that takes longer is tried again (default 10)",
    )
    parser.add_argument(
        "--head-every",
        type=float,
        default=HEAD_EVERY_S,
        metavar="SECONDS",
        help="send the log's head to the owner's channels this often, and when the service "
        f"stops (default {HEAD_EVERY_S:g}: daily)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=default_workers(),
        help="extra processes that judge calls beside the service, to use more cores (default "
        f"{default_workers()}: one per core past the first, at most {MAX_DEFAULT_WORKERS})",
    )
    parser.set_defaults(handler=run)


MAX_DEFAULT_WORKERS = 3


def default_workers() -> int:
    return max(0, min((os.cpu_count() or 1) - 1, MAX_DEFAULT_WORKERS))


STALE_PROBES = 20


def _listening(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def bind_unix(path: str) -> socket.socket:
    """Bind `path`, replacing a stale socket file but never a live service."""
    if os.path.exists(path):
        # A killed service's workers close its sockets a moment after it died.
        for _ in range(STALE_PROBES):
            if not _listening(path):
                os.unlink(path)
                break
            time.sleep(0.1)
        else:
            raise OSError(f"a service is already listening on `{path}`")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(path)
    finally:
        os.umask(old)
    sock.listen(1024)
    return sock


def bind_tcp(spec: str) -> socket.socket:
    host, _, port = spec.rpartition(":")
    host = host or "127.0.0.1"
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"`--http {spec}` is not loopback; the service only listens on loopback")
    from redline.approve.tcp_listen import listen_tcp

    return listen_tcp(host, port, "--http")


def http_spec(given: str, policy_port: int | None) -> str:
    """`--http`'s address: as given, else the policy's approval port on loopback."""
    return given or f"{HTTP_HOST}:{policy_port or HTTP_PORT}"


def _telegram_token(args: argparse.Namespace) -> str | None:
    if args.telegram_token_file:
        with open(args.telegram_token_file, encoding="utf-8") as source:
            return source.read().strip() or None
    return os.environ.get("REDLINE_TELEGRAM_TOKEN", "").strip() or None


def _add_workers(service: Any, args: argparse.Namespace, listeners: list[socket.socket]) -> None:
    """Judging workers share the agent's listeners (the hook socket, loopback HTTP)."""
    from redline.approve.worker import command
    from redline.approve.workers import WorkerPool

    fds = [sock.fileno() for sock in listeners]
    for fd in fds:
        os.set_inheritable(fd, True)
    service.workers = WorkerPool(service, args.workers, command(args.policy, fds), fds)


def run(args: argparse.Namespace) -> int:
    from redline.approve import install_secrets
    from redline.approve.app import build, server_config, service_server
    from redline.approve.paths import ServicePaths
    from redline.approve.service import Service
    from redline.approve.signing import Signer
    from redline.audit.store import LogUnavailable, resolve_url
    from redline.gatekeeper import Gate
    from redline.home import home_dir
    from redline.home_modes import loose_note, secure
    from redline.policy.load import PolicyError

    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s: %(message)s"
    )
    paths = ServicePaths(home_dir(), args.agent_group)
    try:
        if args.head_every <= 0 or args.telegram_timeout <= 0:
            raise ValueError("`--head-every` and `--telegram-timeout` must be above 0 seconds")
        # Everything the service and its workers create is the owner's alone.
        left = secure(paths.home)
        if left:
            fix = "they are not yours to change: have their owner run `chmod go-rwx` on them"
            sys.stderr.write(f"redline serve: {loose_note(left, fix)}\n")
        paths.prepare()
        signer = Signer.load_or_create(paths)
        gate = Gate.from_environ(os.environ, args.policy)
        service = Service(
            gate=gate,
            signer=signer,
            store_url=resolve_url(args.store, os.environ),
            timeout_s=args.timeout,
            head_every_s=args.head_every,
            hook_token=install_secrets.hook_token(paths),
            pairing_key=install_secrets.pairing_key(paths),
            service_dir=paths.service_dir,
        )
        sockets = [bind_unix(paths.hook_socket), bind_unix(paths.owner_socket)]
        paths.secure_socket(paths.hook_socket, shared=True)
        paths.secure_socket(paths.owner_socket, shared=False)
        agent_listeners = [sockets[0]]
        web: list[Any] | None = None
        if args.http is not None:
            from redline.approve.web import web_routes

            agent_listeners.append(bind_tcp(http_spec(args.http, gate.policy.approval_port)))
            sockets.append(agent_listeners[-1])
            web = web_routes(service)
        relays: dict[str, str] = {}
        if args.workers < 0:
            raise ValueError(f"`--workers {args.workers}`: expected 0 or more")
        if args.workers:
            relays = {"hook": paths.relay_socket("hook")}
            if web is not None:
                relays["http"] = paths.relay_socket("http")
            for relay in relays.values():
                sockets.append(bind_unix(relay))
                paths.secure_socket(relay, shared=False)
            _add_workers(service, args, agent_listeners)
        exclusive: list[Any] = []
        agents: tuple[Any, Any] | None = None
        if args.agents:
            from redline.approve.agents_port import agents_server, bind_agents

            if bool(args.tls_cert) != bool(args.tls_key):
                raise ValueError("`--tls-cert` and `--tls-key` go together")
            agents = (
                bind_agents(args.agents, bool(args.tls_cert)),
                agents_server(service, args.tls_cert, args.tls_key),
            )
        token = _telegram_token(args)
        if token:
            from redline.approve.telegram import TelegramChannel

            exclusive.append(
                TelegramChannel(
                    service,
                    token,
                    base_url=args.telegram_api,
                    request_timeout=args.telegram_timeout,
                )
            )
        if service.db.postgres:
            from redline.approve.fleet import Fleet

            # Replicas may share this database: the bot runs in one of them.
            service.fleet = Fleet(service, service.store_url, exclusive=exclusive)
        else:
            service.channels.extend(exclusive)
    except (OSError, ValueError, PolicyError, LogUnavailable) as err:
        sys.stderr.write(f"redline serve: {err}\n")
        return exitcodes.ERROR
    app = build(
        service,
        hook_socket=paths.hook_socket,
        owner_socket=paths.owner_socket,
        web=web,
        relays=relays,
    )
    server = service_server(server_config(app), service)
    sys.stderr.write(
        f"redline serve: hooks connect to {paths.hook_socket}"
        + (f", web page on http://127.0.0.1:{sockets[2].getsockname()[1]}" if web else "")
        + (f"; {args.workers} judging worker(s)" if args.workers else "")
        + f"; key {signer.key_id}\n"
    )
    sys.stderr.flush()
    http_ports = [sockets[2].getsockname()[1]] if web else []
    paths.write_state(os.getpid(), http_ports)
    try:
        if agents is None:
            server.run(sockets=sockets)
        else:
            import asyncio

            from redline.approve.agents_port import serve_both

            address = agents[0].getsockname()
            sys.stderr.write(f"redline serve: agents port on {address[0]}:{address[1]}\n")
            sys.stderr.flush()
            with asyncio.Runner(loop_factory=server.config.get_loop_factory()) as runner:
                runner.run(serve_both(server, sockets, agents[1], agents[0]))
    finally:
        paths.clear_state(os.getpid())
    for path in (paths.hook_socket, paths.owner_socket, *relays.values()):
        if os.path.exists(path):
            os.unlink(path)
    return 0
