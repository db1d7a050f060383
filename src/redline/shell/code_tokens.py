"""A careful tokenizer for the code of JavaScript, Ruby, Perl and PHP, and
the values of its simple expressions (issue #13, family 7).

Strings become their values (a string that interpolates code is unknown),
comments are dropped, numbers are read; variables bound once to a known
value are followed. `~` stands for the home directory however the code
spells it (`os.homedir()`, `process.env.HOME`, `$ENV{HOME}`, `Dir.home`).
"""

from __future__ import annotations

import re

from redline.fasttuple import NamedTuple
from redline.shell.lazy_regex import lazy_regex

Value = str | int | list["Value"] | None


class Token(NamedTuple):
    kind: str  # "str", "num", "name", "op"
    text: str
    value: Value = None


_TOKEN = lazy_regex(
    r"""(?P<space>\s+)|(?P<line>//[^\n]*|\#[^\n]*)|(?P<block>/\*.*?\*/)"""
    r"""|(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`)"""
    r"""|(?P<num>0[xX][0-9a-fA-F]+|\d+)"""
    r"""|(?P<name>[$@%]?[A-Za-z_][A-Za-z0-9_]*[?!]?)|(?P<op>::|->|=>|\.\.|.)""",
    re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "0": "\0", "r": "\r"}
MAX_TOKENS = 20_000


def tokens(code: str, family: str) -> list[Token]:
    found: list[Token] = []
    for match in _TOKEN.finditer(code):
        kind = match.lastgroup or "op"
        text = match.group()
        if kind in ("space", "block"):
            continue
        if kind == "line":
            if text.startswith("#") and family in ("node", "nodejs", "bun", "deno"):
                kind = "op"  # `#private` fields; not a comment in JavaScript
            else:
                continue
        if kind == "str":
            found.append(Token("str", text, _string(text, family)))
        elif kind == "num":
            found.append(Token("num", text, _number(text)))
        else:
            found.append(Token(kind, text))
        if len(found) > MAX_TOKENS:
            break
    return found


def _number(text: str) -> int:
    """`0x1F`, `42`, and `0755` as these languages read it (octal; `09` is
    nine): Python's `int(text, 0)` refuses a leading zero."""
    if text[:2] in ("0x", "0X"):
        return int(text, 16)
    if len(text) > 1 and text[0] == "0" and text.isascii() and max(text) < "8":
        return int(text, 8)
    return int(text)


def _string(text: str, family: str) -> Value:
    quote, body = text[0], text[1:-1]
    interpolates = (
        (quote == "`" and "${" in body)
        or (quote == '"' and family in ("perl", "php") and ("$" in body or "@" in body))
        or (quote == '"' and family == "ruby" and "#{" in body)
    )
    if interpolates:
        return None
    if quote == "`" and family not in ("node", "nodejs", "bun", "deno"):
        return None  # a command's output, not a string
    return unescape(body, single=quote == "'")


def unescape(body: str, single: bool = False) -> str:
    """A string literal's body with its escapes read (`\\n`, `\\"`...); in
    single quotes only `\\'` and `\\\\` are escapes."""
    if "\\" not in body:
        return body
    out: list[str] = []
    k = 0
    while k < len(body):
        char = body[k]
        if char == "\\" and k + 1 < len(body):
            following = body[k + 1]
            literal = single and following not in ("'", "\\")
            out.append(char + following if literal else _ESCAPES.get(following, following))
            k += 2
            continue
        out.append(char)
        k += 1
    return "".join(out)


class Reader:
    """Expressions over a token list: values, calls and their arguments."""

    def __init__(self, toks: list[Token], family: str) -> None:
        self.toks = toks
        self.family = family
        self.concat = "." if family in ("perl", "php") else "+"
        self.bound: dict[str, Value] = {}
        self._bind()

    def _bind(self) -> None:
        """Names assigned exactly once, to a value read at that point."""
        counts: dict[str, int] = {}
        toks = self.toks
        for k, tok in enumerate(toks[:-1]):
            if tok.kind == "name" and toks[k + 1].text == "=" and not _compares(toks, k + 1):
                counts[tok.text] = counts.get(tok.text, 0) + 1
        for k, tok in enumerate(toks[:-1]):
            if counts.get(tok.text) == 1 and toks[k + 1].text == "=" and not _compares(toks, k + 1):
                self.bound[tok.text] = self.value(k + 2)[0]

    def text_at(self, k: int) -> str:
        return self.toks[k].text if 0 <= k < len(self.toks) else ""

    def value(self, k: int, depth: int = 0) -> tuple[Value, int]:
        """The value of the expression starting at token `k`, and where it ends."""
        value, k = self.primary(k, depth)
        while self.text_at(k) == self.concat and depth < 40:
            right, k = self.primary(k + 1, depth + 1)
            if isinstance(value, str) and isinstance(right, str | int):
                value = value + str(right)
            elif isinstance(value, int) and isinstance(right, int):
                value = value + right
            else:
                value = None
        return value, k

    def primary(self, k: int, depth: int = 0) -> tuple[Value, int]:
        toks = self.toks
        if k >= len(toks) or depth > 40:
            return None, k
        tok = toks[k]
        if tok.kind in ("str", "num"):
            return tok.value, self._skip_chain(k + 1)
        if tok.text == "-" and k + 1 < len(toks) and toks[k + 1].kind == "num":
            number = toks[k + 1].value
            return (-number if isinstance(number, int) else None), k + 2
        if tok.text == "[" or (tok.text == "(" and self.family == "perl"):
            items, end = self.arguments(k)
            return [v for v, _ in items], end
        if tok.text in ("(",):
            inner, end = self.value(k + 1, depth + 1)
            return (inner if self.text_at(end) == ")" else None), self._close(k)
        if tok.kind == "name":
            end = self._chain_end(k)
            chain = "".join(t.text for t in toks[k:end])
            if _HOME.match(chain):
                return "~", end
            if end == k + 1 and tok.text in self.bound:
                return self.bound[tok.text], end
            return None, end
        return None, k + 1

    def _chain_end(self, k: int) -> int:
        """The end of `a.b(c).d['e']`: names joined by `.`, `::`, `->`, calls, indexes."""
        toks = self.toks
        k += 1
        while k < len(toks):
            text = toks[k].text
            if text in (".", "::", "->") and k + 1 < len(toks) and toks[k + 1].kind == "name":
                if text == "." and self.concat == ".":
                    break
                k += 2
            elif text in ("(", "[") or (text == "{" and self.family == "perl"):
                k = self._close(k)
            else:
                break
        return k

    def _skip_chain(self, k: int) -> int:
        """`"x".encode()`: methods on a literal keep it unknown-free only for reading."""
        return k

    def _close(self, k: int) -> int:
        """The token after the bracket that closes the one at `k`."""
        pairs = {"(": ")", "[": "]", "{": "}"}
        stack: list[str] = []
        toks = self.toks
        while k < len(toks):
            text = toks[k].text
            if text in pairs:
                stack.append(pairs[text])
            elif stack and text == stack[-1]:
                stack.pop()
                if not stack:
                    return k + 1
            k += 1
        return k

    def arguments(self, k: int) -> tuple[list[tuple[Value, tuple[int, int]]], int]:
        """The arguments in the brackets opening at `k`: each value and its token range."""
        end = self._close(k)
        items: list[tuple[Value, tuple[int, int]]] = []
        start = k + 1
        depth = 0
        for j in range(k + 1, end):
            text = self.toks[j].text
            if text in ("(", "[", "{"):
                depth += 1
            elif text in (")", "]", "}"):
                depth -= 1
            if (text == "," and depth == 0) or j == end - 1:
                if j > start or (j == end - 1 and j > start):
                    items.append((self._whole(start, j), (start, j)))
                start = j + 1
        return items, end

    def bare_arguments(self, k: int) -> list[tuple[Value, tuple[int, int]]]:
        """`system "x", "y";`: the arguments of a call without brackets."""
        items: list[tuple[Value, tuple[int, int]]] = []
        start = k
        j = k
        toks = self.toks
        while j < len(toks) and toks[j].text not in (";", "}", "or", "and", "||", "&&"):
            if toks[j].text in ("(", "[", "{"):
                j = self._close(j)
                continue
            if toks[j].text == ",":
                items.append((self._whole(start, j), (start, j)))
                start = j + 1
            j += 1
        if j > start:
            items.append((self._whole(start, j), (start, j)))
        return items

    def _whole(self, start: int, end: int) -> Value:
        value, stop = self.value(start)
        return value if stop == end else None


def _compares(toks: list[Token], k: int) -> bool:
    return k + 1 < len(toks) and toks[k + 1].text in ("=", "~", ">")


_HOME = lazy_regex(
    r"""\A(?:(?:require\(['"]os['"]\)|os)\.homedir\(\)|process\.env\.HOME|process\.env\[['"]HOME['"]\]"""
    r"""|\$ENV\{HOME\}|\$ENV\{['"]HOME['"]\}|ENV\[['"]HOME['"]\]|Dir\.home|getenv\(['"]HOME['"]\)|ENV\.fetch\(['"]HOME['"]\)"""
    r"""|\$_SERVER\[['"]HOME['"]\]|Deno\.env\.get\(['"]HOME['"]\)|File\.expand_path\(['"]~['"]\))\Z"""
)
