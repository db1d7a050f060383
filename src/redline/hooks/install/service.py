"""What `redline install AGENT --service` adds to the hook it writes.

The hook asks `redline serve` instead of deciding alone (`redline hook AGENT
--service`), pins the service's public key on its command line
(`--service-key`, read from `$REDLINE_HOME/service/signing.pub` at install
time) so an answer signed by any other key is refused, makes the hook token
the service asks for on loopback HTTP (never on the command line: the agent
may read its own config), and gets a host
timeout longer than the service's hold timeout: a held call waits up to the
hold timeout, the hook then asks for the timeout's answer for `GRACE_S` more,
and the agent must not kill the hook before that (a killed hook is a
non-answer the host may treat as an error rather than a refusal).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from redline.approve.defaults import HOLD_TIMEOUT_S
from redline.hooks.install.files import ConfigError

SLACK_S = 45.0
"""Room above hold + grace for a slow start and a reconnect (240 s hold -> 300 s)."""


def host_timeout_s(hold_s: float = HOLD_TIMEOUT_S) -> int:
    """Seconds the agent should let a `--service` hook run for a `hold_s` hold."""
    from redline.approve.client import GRACE_S

    if not hold_s > 0 or math.isinf(hold_s):
        raise ConfigError(f"the hold timeout must be a positive number of seconds, not {hold_s}")
    return math.ceil(hold_s + GRACE_S + SLACK_S)


def read_public_key(environ: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """The service's public key (base64) to pin, or `None` if the service has
    not made one yet, and where it was looked for. A key file that is there
    but unusable is an error."""
    from redline.approve.client import Unverified, pinned_key
    from redline.approve.paths import ServicePaths
    from redline.home import home_dir

    paths = ServicePaths(home_dir(os.environ if environ is None else environ))
    if not os.path.exists(paths.public_key):
        return None, paths.public_key
    try:
        with open(paths.public_key, encoding="ascii") as source:
            text = source.read().strip()
        pinned_key(paths, text)
    except (OSError, UnicodeDecodeError, Unverified) as error:
        raise ConfigError(
            f"the service's public key `{paths.public_key}` cannot be used ({error}); "
            "restart `redline serve` to rewrite it, or pass --service-key"
        ) from None
    return text, paths.public_key


def write_hook_token(environ: Mapping[str, str] | None = None) -> str:
    """Make the install's hook token (0600, `approve.install_secrets`) unless
    there is one; the file's path. A hook sends it with every request on
    loopback HTTP, where the service refuses hook routes without it."""
    from redline.approve import install_secrets
    from redline.approve.paths import ServicePaths
    from redline.home import home_dir

    paths = ServicePaths(home_dir(os.environ if environ is None else environ))
    try:
        install_secrets.hook_token(paths)
    except OSError as error:
        raise ConfigError(f"the hook token cannot be written ({error})") from None
    return install_secrets.hook_token_path(paths)
