"""Where the service keeps its sockets and keys under `$REDLINE_HOME`.

$REDLINE_HOME           0700 (0710, group = the agent's group, with one)
    service/            0750, group = the agent's group (0700 without one)
      agent-group       0600: that group's id, with `--agent-group`
      hook.sock         0660: hooks connect here (owner and the agent's user)
      serve.json        0600: the running service's PID and HTTP port, for the
                        gate's never-run checks (`redline.machine`)
      signing.pub       0640 (0600 without an agent's group): the public key hooks pin
      owner/            0700: the owner only
        owner.sock      0600: `redline pending/approve/reject/pair`
        relay-*.sock    0600: judging workers hand the service what they
                        do not answer themselves (`redline.approve.worker`)
        signing.key     0600: the private signing key

Nothing here is writable by the agent's user: the owner alone can change it.
Imports only `os`, for the hook's start.
"""

from __future__ import annotations

import os

from redline.fasttuple import NamedTuple

SERVICE_DIR = "service"
AGENT_GROUP_FILE = "agent-group"


def write_private(path: str, text: str) -> None:
    """Write `path` 0600 from its creation (temporary file, then renamed)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(text)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


class ServicePaths(NamedTuple):
    home: str
    agent_group: str | None = None

    @property
    def service_dir(self) -> str:
        return os.path.join(self.home, SERVICE_DIR)

    @property
    def owner_dir(self) -> str:
        return os.path.join(self.service_dir, "owner")

    @property
    def hook_socket(self) -> str:
        return os.path.join(self.service_dir, "hook.sock")

    @property
    def owner_socket(self) -> str:
        return os.path.join(self.owner_dir, "owner.sock")

    def relay_socket(self, listener: str) -> str:
        """Where workers pass on a request that came in on `listener`
        (`hook` or `http`): the service serves it as if it came in there."""
        return os.path.join(self.owner_dir, f"relay-{listener}.sock")

    @property
    def state_file(self) -> str:
        return os.path.join(self.service_dir, "serve.json")

    def write_state(self, pid: int, ports: list[int]) -> None:
        """Say which process serves and on which HTTP ports: the gate then
        knows them as the service's (never killed, never called by the agent)."""
        import json

        temporary = f"{self.state_file}.{pid}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump({"pid": pid, "ports": ports}, file)
        os.replace(temporary, self.state_file)

    def clear_state(self, pid: int) -> None:
        """Remove the state file if it is still this process's."""
        import json

        try:
            with open(self.state_file, encoding="utf-8") as file:
                if json.load(file).get("pid") != pid:
                    return
            os.unlink(self.state_file)
        except (OSError, ValueError, AttributeError):
            pass

    @property
    def remote_file(self) -> str:
        """On an agent's machine: the service's HTTPS address(es), one line,
        comma-separated replicas (`redline install ... --service URL`)."""
        return os.path.join(self.service_dir, "remote")

    @property
    def agent_token_file(self) -> str:
        """On an agent's machine: its agent token (0600)."""
        return os.path.join(self.service_dir, "agent-token")

    @property
    def remote_ca_file(self) -> str:
        """On an agent's machine: the CA to trust for the service, if not the system's."""
        return os.path.join(self.service_dir, "remote-ca.pem")

    def remote(self) -> str | None:
        try:
            with open(self.remote_file, encoding="utf-8") as file:
                return file.read().strip() or None
        except OSError:
            return None

    @property
    def public_key(self) -> str:
        return os.path.join(self.service_dir, "signing.pub")

    @property
    def private_key(self) -> str:
        return os.path.join(self.owner_dir, "signing.key")

    def group_id(self) -> int | None:
        if not self.agent_group:
            return None
        import grp

        try:
            return grp.getgrnam(self.agent_group).gr_gid
        except KeyError:
            if self.agent_group.isdigit():
                return int(self.agent_group)
            raise ValueError(f"unknown group `{self.agent_group}`") from None

    @property
    def agent_group_file(self) -> str:
        """The agent's group id, when `--agent-group` shares the hook socket
        (`redline.home_modes` keeps that group's bits on the shared entries)."""
        return os.path.join(self.service_dir, AGENT_GROUP_FILE)

    def prepare(self) -> None:
        """Make the directories with their modes (fixing them if they drifted):
        the owner's alone, but for what the agent's group must reach."""
        old = os.umask(0o077)
        try:
            os.makedirs(self.owner_dir, mode=0o700, exist_ok=True)
        finally:
            os.umask(old)
        gid = self.group_id()
        if gid is not None:
            for path in (self.home, self.service_dir):
                os.chown(path, -1, gid)
            write_private(self.agent_group_file, f"{gid}\n")
        elif os.path.exists(self.agent_group_file):
            os.unlink(self.agent_group_file)
        os.chmod(self.home, 0o710 if gid is not None else 0o700)
        os.chmod(self.service_dir, 0o750 if gid is not None else 0o700)
        os.chmod(self.owner_dir, 0o700)

    def secure_public(self, path: str) -> None:
        """The public key: the owner's, and readable by the agent's group if any."""
        gid = self.group_id()
        if gid is not None:
            os.chown(path, -1, gid)
        os.chmod(path, 0o640 if gid is not None else 0o600)

    def secure_socket(self, path: str, shared: bool) -> None:
        """Give a freshly bound socket its mode: the hook socket to the agent's
        group too, the owner socket to the owner only."""
        gid = self.group_id() if shared else None
        if gid is not None:
            os.chown(path, -1, gid)
        os.chmod(path, 0o660 if gid is not None else 0o600)
