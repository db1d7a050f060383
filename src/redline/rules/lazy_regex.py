"""Rule patterns compile on first use: the helper lives in the shell analysis
(`redline.shell.lazy_regex`, docs/adr/0003) so that the shell's patterns are
lazy too; rules and the gate import it from here."""

from redline.shell.lazy_regex import _ALL, LazyPattern, Replacement, compile_all, lazy_regex

__all__ = ["_ALL", "LazyPattern", "Replacement", "compile_all", "lazy_regex"]
