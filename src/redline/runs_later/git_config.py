"""Git's configuration files (`.git/config`, `~/.gitconfig`...) read for the
commands git runs from them: `core.fsmonitor` (every `git status`),
`core.pager`, `core.editor`, `core.sshCommand`, an alias's `!CMD`, filter
and diff drivers, credential helpers, a remote's `uploadpack`, an `ext::`
URL. What the file makes git run that the file does not show is `unseen`:
an `include.path` (another file's settings) or a hooks folder outside the
repository.

Ordinary settings stay quiet: `core.editor = vim` runs `vim`, and
`credential.helper = store` runs git's own `git credential-store` (it keeps
passwords in a plain file, the owner's choice, not code that runs).
"""

from __future__ import annotations

from redline.shell.lazy_regex import lazy_regex

_SECTION = lazy_regex(r"\s*\[\s*([\w.-]+)(?:\s+\"((?:[^\"\\]|\\.)*)\")?\s*\](.*)\Z")
_KEY = lazy_regex(r"\s*([A-Za-z][\w-]*)\s*(?:=(.*))?\Z")
_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}
# Keys git runs as commands that `run_carriers.git_config_runs` does not list.
_MORE_COMMANDS = frozenset({"core.gitproxy", "core.alternaterefscommand",
                            "gpg.ssh.defaultkeycommand", "interactive.difffilter",
                            "sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd",
                            "sendemail.headercmd", "web.browser", "imap.tunnel",
                            "instaweb.httpd", "gpg.openpgp.program"})  # fmt: skip
_REMOTE_PROGRAMS = (".uploadpack", ".receivepack")
# `SECTION.NAME.KEY` whose value is a command: a merge driver, a trailer's
# command, `git archive`'s compressor, a `git gui` tool, a diff or merge
# tool's program, an identity's `sendemail` commands.
_NAMED_COMMANDS = {
    "merge": (".driver",), "trailer": (".command", ".cmd"), "tar": (".command",),
    "guitool": (".cmd",), "difftool": (".path",), "mergetool": (".path",),
    "sendemail": (".sendmailcmd", ".tocmd", ".cccmd", ".headercmd"),
}  # fmt: skip
# Keys whose value is a URL: `ext::CMD` runs CMD, `NAME::ADDRESS` runs the
# transport helper `git-remote-NAME`.
_URL_KEY = lazy_regex(r"(?:remote|submodule)\..*\.(?:url|pushurl)\Z")


def entries(text: str) -> list[tuple[str, str]]:
    """Each `(section.subsection.key, value)` in order, keys as written."""
    found: list[tuple[str, str]] = []
    section = ""
    for line in _joined(text.replace("\r\n", "\n")).split("\n"):
        match = _SECTION.match(line)
        if match is not None:
            name, sub, line = match.group(1), match.group(2), match.group(3)
            section = f"{name}.{sub.replace(chr(92), '')}" if sub is not None else name
        key = _KEY.match(line)
        if key is None or not section:
            continue
        value = "true" if key.group(2) is None else _value(key.group(2))
        found.append((f"{section}.{key.group(1)}", value))
    return found


def commands(text: str) -> list[str]:
    """The commands git runs from the settings in `text`."""
    from redline.shell.model import DYNAMIC
    from redline.shell.run_carriers import git_config_runs

    found: list[str] = []
    for key, value in entries(text):
        lowered = _general(key.lower())
        url = _url_of(key, value)
        if url is not None and url.startswith("ext::"):
            found.append(_ext_command(url))
            continue
        if lowered in _MORE_COMMANDS or lowered.endswith(_REMOTE_PROGRAMS) or _named(lowered):
            found.append(value)
            continue
        if lowered == "sendemail.smtpserver" and value.startswith(("/", "~")):
            found.append(value)  # a full path is a sendmail-like program git runs
            continue
        if lowered.startswith("alias.") and value and not value.startswith("!"):
            found.append("git " + value)  # git's own options: `-c core.pager=CMD log`
            continue
        runs = git_config_runs(lowered, value)
        if runs is not None and runs != DYNAMIC and runs.strip():
            found.append(runs)
    return found


def unseen(text: str) -> list[tuple[str, str]]:
    """Settings that make git run what the file does not show: `(why, line)`."""
    from redline.shell.model import DYNAMIC
    from redline.shell.run_carriers import git_config_runs

    found: list[tuple[str, str]] = []
    for key, value in entries(text):
        lowered = key.lower()
        line = f"{key} = {value}"
        if lowered == "include.path" or (
            lowered.startswith("includeif.") and lowered[-5:] == ".path"
        ):
            found.append(("includes another file's settings, which git reads unseen", line))
        elif lowered == "core.hookspath" and git_config_runs(lowered, value) == DYNAMIC:
            found.append(("runs git hooks from a folder outside the repository", line))
        else:
            url = _url_of(key, value)
            helper = _HELPER.match(url or "")
            if helper is not None and helper.group(1).lower() != "ext":
                why = f"runs the transport helper `git-remote-{helper.group(1)}`, unseen"
                found.append((why, line))
            elif lowered.startswith("remote.") and lowered.endswith(".vcs"):
                found.append((f"runs the transport helper `git-remote-{value}`, unseen", line))
    return found


# `NAME::ADDRESS`: git runs `git-remote-NAME` (not a Windows drive `C:`).
_HELPER = lazy_regex(r"([A-Za-z][\w+.-]*)::")


def _url_of(key: str, value: str) -> str | None:
    """The URL a key gives git: a remote's or submodule's `url`, or the
    subsection of `url.<URL>.insteadOf` / `.pushInsteadOf`."""
    lowered = key.lower()
    if _URL_KEY.match(lowered):
        return value
    if lowered.startswith("url.") and lowered.endswith((".insteadof", ".pushinsteadof")):
        return key[4:].rsplit(".", 1)[0]
    return None


def _ext_command(url: str) -> str:
    """`ext::sh -c rm% -rf% ~`: the command git's `ext` transport runs, as
    the shell line of its argv (a space parts arguments, `% ` is a space
    inside one, `%%` a percent sign, `%s` the service's name)."""
    import shlex

    argv: list[str] = []
    word: list[str] = []
    text = url[5:]
    k = 0
    while k < len(text):
        char = text[k]
        if char == "%" and k + 1 < len(text):
            following = text[k + 1]
            word.append(
                {" ": " ", "%": "%", "s": "upload-pack", "S": "git-upload-pack"}.get(following, "")
            )
            k += 2
            continue
        if char == " ":
            if word:
                argv.append("".join(word))
            word = []
        else:
            word.append(char)
        k += 1
    if word:
        argv.append("".join(word))
    return shlex.join(argv)


def _named(key: str) -> bool:
    section, _, rest = key.partition(".")
    suffixes = _NAMED_COMMANDS.get(section)
    return suffixes is not None and "." in rest and rest.endswith(suffixes)


def _general(key: str) -> str:
    """`credential.https://host.helper` is a `credential.helper`."""
    if key.startswith("credential.") and key.endswith(".helper"):
        return "credential.helper"
    return key


def _joined(text: str) -> str:
    """Lines continued with a backslash before the newline, joined."""
    return text.replace("\\\n", "") if "\\\n" in text else text


def _value(raw: str) -> str:
    """A value as git reads it: quotes removed, escapes read, a comment
    (`#`, `;` outside quotes) and the spaces around left out."""
    out: list[str] = []
    quoted = False
    k = 0
    while k < len(raw):
        char = raw[k]
        if char == "\\" and k + 1 < len(raw):
            out.append(_ESCAPES.get(raw[k + 1], raw[k + 1]))
            k += 2
            continue
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
        k += 1
    return "".join(out).strip()
