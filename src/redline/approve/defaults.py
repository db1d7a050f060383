"""The service's defaults that other parts must agree with, in one place.

`redline serve` uses them, `redline install --service` derives the agent's
hook timeout from the hold timeout, and the shipped policies name the HTTP
port in `approval.port` so the never-run rule guards the port the service
really listens on (a test holds the policies to it). Imports nothing.
"""

from __future__ import annotations

HOLD_TIMEOUT_S = 240.0
"""How long a held call waits for the owner before it times out (`--timeout`)."""

HTTP_PORT = 8787
"""The loopback HTTP port of `redline serve --http` without a port."""

HTTP_HOST = "127.0.0.1"

HEAD_EVERY_S = 24 * 3600.0
"""How often the service sends the log's head to the owner's channels (daily)."""
