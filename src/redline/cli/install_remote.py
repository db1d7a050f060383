"""`redline install ... --service https://HOST:PORT --token T`: the files in
this machine's `$REDLINE_HOME/service` that send the hook's calls to a
service on another machine (`approve.paths`: `remote`, `agent-token`,
`remote-ca.pem`). Without a URL, any left from an earlier install go: the
hook asks the local service again."""

from __future__ import annotations

import os
import shutil


class RemoteError(ValueError):
    """The remote service's settings cannot be used."""


def set_remote(service: bool | str, token: str | None, key: str | None, ca: str | None) -> None:
    from redline.approve.paths import ServicePaths, write_private
    from redline.home import home_dir

    paths = ServicePaths(home_dir())
    if not isinstance(service, str):
        if token or ca:
            raise RemoteError("--token and --service-ca go with --service https://HOST:PORT")
        if service:
            for stale in (paths.remote_file, paths.agent_token_file, paths.remote_ca_file):
                if os.path.exists(stale):
                    os.unlink(stale)
        return
    urls = [u.strip() for u in service.split(",") if u.strip()]
    if not urls or any(not u.startswith("https://") for u in urls):
        raise RemoteError(
            f"--service `{service}`: a service on another machine is reached over HTTPS "
            "(https://HOST:PORT, comma-separated replicas)"
        )
    if not token:
        raise RemoteError("--service URL needs --token (from `redline agents add NAME`)")
    if not key:
        raise RemoteError(
            "--service URL needs --service-key (the service's signing.pub, which "
            "`redline agents add` prints): its answers are checked against it"
        )
    os.makedirs(paths.service_dir, mode=0o700, exist_ok=True)
    write_private(paths.remote_file, ",".join(urls) + "\n")
    write_private(paths.agent_token_file, token.strip() + "\n")
    # Pinned here too, for hooks started without `--service-key` on their line.
    write_private(paths.public_key, key.strip() + "\n")
    if ca:
        try:
            shutil.copyfile(ca, paths.remote_ca_file)
        except OSError as err:
            raise RemoteError(f"--service-ca `{ca}` cannot be read ({err.strerror})") from None
        os.chmod(paths.remote_ca_file, 0o600)
    elif os.path.exists(paths.remote_ca_file):
        os.unlink(paths.remote_ca_file)
