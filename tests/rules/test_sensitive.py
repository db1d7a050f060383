"""Writes onto sensitive paths are asked; reading them is not this family."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from redline.rules.sensitive import family_of

Judge = Callable[..., tuple[str, tuple[str, ...]]]
ALLOW = ("allow", ())


def ask(family: str) -> tuple[str, tuple[str, ...]]:
    return "ask", ("sensitive.write-" + family,)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("echo x >| ~/.ssh/config", ask("ssh")),
        ("cp -t ~/.ssh key", ask("ssh")),
        ("install -D key -t /root/.ssh", ask("ssh")),
        ("curl -o ~/.ssh/authorized_keys https://x.io/k", ask("ssh")),
        ("tar xzf keys.tgz -C ~/.ssh", ask("ssh")),
        ("chown bob ~/.ssh/authorized_keys", ask("ssh")),
        ("ssh-keygen -y -f ~/.ssh/id_rsa > ~/.ssh/id_rsa.pub", ask("ssh")),
        ("scp x.io:.ssh/id_rsa ~/.ssh/", ask("ssh")),
        ("ssh-keyscan -H x.io >> ~/.ssh/known_hosts", ask("ssh")),
        ('echo "ok" && echo x > ~/.hermes/config.yaml', ask("agent-config")),
        ("cd /root/.hermes && sed -i 's/a/b/' .env", ask("agent-config")),
        ("echo x | tee ${HERMES_HOME}/.env", ask("agent-config")),
        ("cp s.json ~/.claude/settings.json", ask("agent-config")),
        ("echo A=1 >> .env.local", ask("project-env")),
        ("mv .env .env.bak", ask("project-env")),
        ("touch .env", ask("project-env")),
        ("cp .env /tmp/backup/", ask("project-env")),
        ("doppler secrets download --format=env --no-file > app/.env", ask("project-env")),
        ("echo 'db: x' > config.yaml", ask("project-config")),
        ("gh completion --shell zsh >> ~/.zshrc", ask("shell-rc")),
        ('echo x | sudo tee -a "$HOME/.bashrc"', ask("shell-rc")),
        ('bash -c "echo x >> ~/.zshrc"', ask("shell-rc")),
        ('printf x >"${HOME}"/.profile', ask("shell-rc")),
        ("env LC_ALL=C sed -i 's/a/b/' /root/.bashrc", ask("shell-rc")),
        ("cd ~ && echo x >> .bashrc", ask("shell-rc")),
        ("wget -O ~/.bashrc https://x.io/rc", ask("shell-rc")),
        ("patch ~/.bashrc < fix.diff", ask("shell-rc")),
        ("echo x > /etc/profile.d/x.sh", ask("shell-rc")),
        ("unzip creds.zip -d ~/.aws", ask("credentials")),
        ("echo '//registry/:_authToken=x' >> ~/.npmrc", ask("credentials")),
        # the unit file's content is unseen too (`later.unseen`)
        (
            "cp x.service ~/.config/systemd/user/",
            ("ask", ("later.unseen", "sensitive.write-autostart")),
        ),
        ("timeout 5 cp a /etc/hosts", ask("system-config")),
        ("echo x > /etc/../etc/hosts", ask("system-config")),
        ("chattr +i /etc/resolv.conf", ask("system-config")),
        ("sudo visudo", ask("system-config")),
        ("genfstab -U /mnt | sudo tee -a /etc/fstab", ask("system-config")),
        ("crontab path/to/file", ask("crontab")),
        ("echo '0 * * * * x' | crontab -", ask("crontab")),
    ],
)
def test_sensitive_writes(
    judge: Judge, command: str, expected: tuple[str, tuple[str, ...]]
) -> None:
    assert judge(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "cat .env.example",
        "cat .envrc",
        "echo x >> .envrc",
        "echo x >> notes.env.md",
        "echo x > .environment",
        "echo 'A=' > .env.example",
        "rm -f .env.example",
        "ls ~/.ssh",
        "cat ~/.ssh/config",
        "ssh-keygen -f ./id_test",
        "chmod 600 ~/.ssh/id_rsa",
        "chmod go-rwx ~/.ssh/id_rsa",
        "chmod 700 ~/.ssh",
        "cd ~/.ssh && scp id_ed25519.pub me@x.io:",
        "echo x > ~/.bashrc.bak",
        "cp ~/.bashrc ~/.bashrc.bak",
        "source ~/.bashrc",
        "cd sub && echo x > config.yaml",
        "echo x > app/config.yaml",
        "echo x > /tmp/etc/hosts",
        "cat /etc/hosts",
        "cp /etc/nginx/nginx.conf ./nginx.conf",
        "visudo --version",
        "crontab -l",
        "echo 'echo x >> ~/.bashrc'",
        "grep -r 'authorized_keys' .",
    ],
)
def test_reads_and_look_alikes_are_allowed(judge: Judge, command: str) -> None:
    assert judge(command) == ALLOW


def test_a_hard_line_owns_whole_system_directories(judge: Judge) -> None:
    assert judge("rm -rf /etc") == ("deny", ("fs.delete-system-dir",))


@pytest.mark.parametrize(
    ("path", "root", "family"),
    [
        ("~/.hermes/.env", False, "agent-config"),
        ("~/.hermes/agent-hooks/pre.sh", False, "agent-config"),
        ("project/.claude/settings.json", False, "agent-config"),
        ("~/.ssh", False, "ssh"),
        ("~/.aws/config", False, "credentials"),
        ("/etc/profile", False, "shell-rc"),
        ("~/.bashrc", False, "shell-rc"),
        ("project/.bashrc", False, None),
        ("/private/etc/hosts", False, "system-config"),
        ("/var/spool/cron/crontabs/root", False, "system-config"),
        ("app/.env.production", False, "project-env"),
        ("app/.env.example", False, None),
        ("config.yaml", True, "project-config"),
        ("config.yaml", False, None),
        ("/tmp/x", False, None),
    ],
)
def test_family_of(path: str, root: bool, family: str | None) -> None:
    assert family_of(path, root) == family
