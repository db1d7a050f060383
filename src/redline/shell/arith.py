"""Bash's integer arithmetic (`$((...))`, `((...))`, `let`), evaluated
statically over the variables a command set before: enough to know the
number a `kill` is given (`kill $((1270+1))`, `x=1270; ((x++)); kill $x`).
`None` when an expression cannot be known."""

from __future__ import annotations

from redline.shell.lazy_regex import lazy_regex

_TOKEN = lazy_regex(r"\s*(0[xX][0-9a-fA-F]+|\d+|[A-Za-z_]\w*|\+\+|--|[-+*/%]=|\*\*|[-+*/%()=,~])")


class _Unknown(Exception):
    pass


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.replace("$", "")  # `$x` and `x` are one inside `(( ))`
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None:
            raise _Unknown
        out.append(match.group(1))
        pos = match.end()
    return out


class _Eval:
    def __init__(self, tokens: list[str], names: dict[str, int]) -> None:
        self.t, self.i, self.names = tokens, 0, names

    def peek(self) -> str:
        return self.t[self.i] if self.i < len(self.t) else ""

    def take(self) -> str:
        tok = self.peek()
        self.i += 1
        return tok

    def comma(self) -> int:
        value = self.assign()
        while self.peek() == ",":
            self.take()
            value = self.assign()
        return value

    def assign(self) -> int:
        tok = self.peek()
        after = self.t[self.i + 1] if self.i + 1 < len(self.t) else ""
        if _name(tok) and after in ("=", "+=", "-=", "*=", "/=", "%="):
            self.i += 2
            value = self.assign()
            if after != "=":
                value = _apply(after[0], self.get(tok), value)
            self.names[tok] = value
            return value
        return self.sum()

    def sum(self) -> int:
        value = self.product()
        while self.peek() in ("+", "-"):
            value = _apply(self.take(), value, self.product())
        return value

    def product(self) -> int:
        value = self.unary()
        while self.peek() in ("*", "/", "%"):
            value = _apply(self.take(), value, self.unary())
        return value

    def unary(self) -> int:
        tok = self.peek()
        if tok in ("-", "+", "~"):
            self.take()
            value = self.unary()
            return ~value if tok == "~" else -value if tok == "-" else value
        if tok in ("++", "--"):
            self.take()
            name = self.take()
            if not _name(name):
                raise _Unknown
            self.names[name] = self.get(name) + (1 if tok == "++" else -1)
            return self.names[name]
        return self.atom()

    def atom(self) -> int:
        tok = self.take()
        if tok == "(":
            value = self.comma()
            if self.take() != ")":
                raise _Unknown
            return value
        if tok[:1].isdigit():
            return (
                int(tok, 16)
                if tok[:2].lower() == "0x"
                else int(tok, 8 if tok[0] == "0" and len(tok) > 1 else 10)
            )
        if _name(tok):
            value = self.get(tok)
            if self.peek() in ("++", "--"):
                self.names[tok] = value + (1 if self.take() == "++" else -1)
            return value
        raise _Unknown

    def get(self, name: str) -> int:
        if name not in self.names:
            raise _Unknown
        return self.names[name]


def _name(tok: str) -> bool:
    return bool(tok) and (tok[0].isalpha() or tok[0] == "_")


def _apply(op: str, left: int, right: int) -> int:
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if right == 0:
        raise _Unknown
    quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
    return quotient if op == "/" else left - right * quotient


def evaluate(text: str, names: dict[str, int]) -> int | None:
    """The value of an arithmetic expression; `names` is updated by its
    assignments (`x++`, `x+=1`)."""
    try:
        tokens = _tokens(text)
        if not tokens or len(tokens) > 200:
            return None
        machine = _Eval(tokens, names)
        value = machine.comma()
        if machine.i != len(tokens):
            return None
        # Bash's integers are 64-bit and wrap.
        return (value + (1 << 63)) % (1 << 64) - (1 << 63)
    except (_Unknown, ValueError, RecursionError):
        return None
