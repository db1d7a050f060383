"""The owner's home as interpreters' code spells it (`Path.home()`,
`os.homedir()`, `Dir.home`, `ENV.fetch("HOME")`, `os.environ["HOME"]`, Lua's `os.getenv("HOME")`,
R's `Sys.getenv("HOME")` and `path.expand("~")`, Tcl's `$env(HOME)`), and
string literals joined by an operator (`"rm -rf " .. HOME`): code is read
with the home spelled `"~"` and such joins made one literal."""

from __future__ import annotations

from redline.shell.lazy_regex import lazy_regex

_CODE_HOME = lazy_regex(
    r"""(?:os\.path\.)?expanduser\(\s*['"]~['"]\s*\)|(?:pathlib\.)?Path\.home\(\s*\)"""
    r"""|(?:require\(\s*['"]os['"]\s*\)|os)\.homedir\(\s*\)|\bDir\.home\b"""
    r"""|os\.environ\[\s*['"]HOME['"]\s*\]|process\.env\.HOME|\$ENV\{HOME\}|ENV\[['"]HOME['"]\]"""
    r"""|\b(?:os\.getenv|Sys\.getenv|getenv)\(\s*['"]HOME['"]\s*\)|\bpath\.expand\(\s*(['"])~\1\s*\)"""
    r"""|\$(?:::)?env\(HOME\)|\bENV\.fetch\(\s*['"]HOME['"]\s*\)|\bFile\.expand_path\(\s*(['"])~\2\s*\)"""
)
# `"a" .. "b"` (Lua), `"a" + "b"`, `"a" . "b"` (Perl, PHP): one literal.
_JOINED = lazy_regex(r"""(["'])\s*(?:\.\.|\+|\.)\s*(["'])""")


def home_spelled(code: str) -> str:
    """`code` with the home's spellings as the literal `"~"`."""
    return _CODE_HOME.sub('"~"', code)


def joined(code: str) -> str:
    """`"rm -rf " .. "~"` as `"rm -rf ~"` (quotes of one kind only)."""
    return _JOINED.sub(lambda m: "" if m[1] == m[2] else m[0], code)
