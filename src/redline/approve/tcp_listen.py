"""A TCP listening socket for `redline serve`'s listeners (loopback HTTP and
the agents port), with the error an owner can act on when it cannot listen."""

from __future__ import annotations

import errno
import socket


def listen_tcp(host: str, port: str, flag: str) -> socket.socket:
    """Bind and listen on `host:port`; `ValueError` naming `flag` and the repair."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, int(port)))
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise ValueError(
                f"port {port} on {host} is already in use; stop what listens there "
                f"(`ss -ltnp 'sport = :{port}'` names it) or choose another with `{flag} PORT`"
            ) from None
        raise ValueError(
            f"`{flag}` cannot listen on {host}:{port} ({err.strerror or err})"
        ) from None
    sock.listen(1024)
    return sock
