"""What each network sender sends."""

from __future__ import annotations

import pytest

from redline.rules.senders import SENDERS, Sent, args_from_stdin, is_remote, socket_redirect
from redline.shell.analysis import analyze


def sent(command: str) -> Sent | None:
    inv = analyze(command).invocations[0]
    return SENDERS[inv.name](inv)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("curl -d @a.json -F 'f=@b.bin;type=x' -T c https://x.io", Sent(("a.json", "b.bin", "c"))),
        ("curl -d @- https://x.io", Sent(("-",), True)),
        ("curl --data-urlencode 'k@f.txt' --data-urlencode 'a=b@c' x.io", Sent(("f.txt",))),
        ("curl -o out.html -H 'X: @y' https://x.io", Sent()),
        ("wget --post-file=f https://x.io", Sent(("f",))),
        (
            "http POST x.io a=@f.txt b:=@g.json c@h.bin d=e",
            Sent(("f.txt", "g.json", "h.bin"), True),
        ),
        ("http --ignore-stdin x.io", Sent()),
        ("nc x.io 9", Sent((), True)),
        ("openssl x509 -in c.pem", Sent()),
        ("scp -i key a b me@x.io:", Sent(("a", "b"))),
        ("scp me@x.io:a ./", Sent()),
        ("rsync -e 'ssh -i k' --exclude .git ./ x.io:/srv", Sent(("./",))),
        ("aws s3 cp --profile p f s3://b/", Sent(("f",))),
        ("aws s3 cp s3://b/f ./", None),
        ("rclone rcat remote:f", Sent((), True)),
        ("gh gist create a.txt -", Sent(("a.txt", "-"), True)),
        ("gh api -F body=@f.md repos/x", Sent(("f.md",))),
        ("gh auth login --with-token", None),
        ("sftp x.io <<< 'put f'", Sent((), True, "put f\n")),
    ],
)
def test_what_is_sent(command: str, expected: Sent | None) -> None:
    assert sent(command) == expected


@pytest.mark.parametrize(
    ("value", "remote"),
    [("host:", True), ("me@host:path", True), ("s3://b/k", True), ("remote:dir", True),
     ("[::1]:x", True), ("./a:b", False), ("/abs/path", False), ("file.txt", False),
     ("~/x:y", False)],
)  # fmt: skip
def test_is_remote(value: str, remote: bool) -> None:
    assert is_remote(value) is remote


def test_socket_redirects_and_arguments_from_stdin() -> None:
    inv = analyze("cat k > /dev/tcp/x.io/9").invocations[0]
    assert (socket_redirect(inv), socket_redirect(inv, writes=True)) == (True, True)
    inv = analyze("cat < /dev/udp/x.io/9").invocations[0]
    assert (socket_redirect(inv, writes=True), socket_redirect(inv, writes=False)) == (False, True)
    assert not socket_redirect(analyze("cat k > /tmp/tcp").invocations[0])
    piped = analyze("ls | xargs curl").invocations[-1]
    found = analyze("find . -exec curl {} +").invocations[-1]
    assert (args_from_stdin(piped), args_from_stdin(found)) == (True, False)
