"""Whether inline interpreter code is plainly harmless.

`harmless(family, code)` is an allowlist: it says yes only when every name
the code uses is known to read, compute or print, and nothing else. Python is
read with `ast`; the other languages word by word, after comments, strings
and patterns are set aside the way the language reads them (a string that
interpolates code, or a substitution that evaluates, is never harmless).
"""

from __future__ import annotations

import re

from redline.shell.lazy_regex import lazy_regex
from redline.shell.model import DYNAMIC


def harmless(family: str, code: str, carried: bool = False) -> bool:
    """True only when the code plainly reads, computes and prints.

    With `carried`, the analysis has parsed the code's literal shell calls
    (`os.system("ls")`) as commands of their own, so those calls pass too.
    """
    if DYNAMIC in code or len(code) > 20_000:
        return False
    if family in ("python", "pypy"):
        # `ast` and the Python tables load only when Python code is judged.
        from redline.rules.harmless_python import python_harmless

        return python_harmless(code, carried)
    lexicon = _LEXICONS.get(family)
    return lexicon is not None and _words_harmless(family, code, lexicon, carried)


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- Other languages: every word must be known ---------------------------------

_COMMON = ("if else for while return true false null print printf sprintf length join "
           "split sort reverse map keys values push pop shift unshift abs int round floor "
           "ceil sqrt max min sum")  # fmt: skip
_JS = _COMMON + (
    " const let var function of in new typeof instanceof undefined NaN Infinity break "
    "continue switch case default try catch finally throw do console log error info warn "
    "dir table JSON stringify parse Math PI E pow random trunc sign Date now toISOString "
    "toLocaleString toLocaleDateString getTime getFullYear getMonth getDate Number String "
    "Boolean Array isArray from Object entries assign parseInt parseFloat isNaN isFinite "
    "filter reduce forEach some every find findIndex slice toString toFixed toUpperCase "
    "toLowerCase trim replace replaceAll includes indexOf startsWith endsWith concat flat "
    "padStart padEnd repeat charAt charCodeAt fromCharCode codePointAt test match RegExp Set "
    "Map has get set add size BigInt Intl NumberFormat DateTimeFormat format "
    "encodeURIComponent decodeURIComponent encodeURI decodeURI btoa atob Buffer process "
    "version versions platform arch argv stdout stderr write exit pid uptime memoryUsage "
    "hrtime release execPath node v8 openssl"
)
_PERL = _COMMON + (
    " say unless elsif foreach until next last my our local uc lc ucfirst lcfirst exists "
    "defined delete chomp chop chr ord substr index rindex hex oct scalar grep and or not "
    "xor eq ne lt gt le ge cmp x END BEGIN STDIN STDOUT STDERR first uniq strftime time "
    "localtime gmtime sprintf lc"
)
_RUBY = _COMMON + (
    " puts p pp format unless elsif end do then nil and or not begin rescue ensure def case "
    "when each each_with_index each_line collect select reject sort_by uniq strip chomp chop "
    "lstrip rstrip upcase downcase capitalize size count first last take drop to_s to_i "
    "to_f to_a to_h to_sym times upto downto step Time now strftime year month day Date "
    "today Math PI inspect gsub sub tr scan match STDIN read readlines gets ARGF lines chars "
    "bytes ljust rjust center zip flatten compact group_by tally freeze dup merge Integer "
    "Float String Array Hash JSON generate pretty_generate to_json RUBY_VERSION "
    "RUBY_PLATFORM RUBY_RELEASE_DATE RUBY_ENGINE new"
)
_PHP = _COMMON + (
    " echo print_r var_dump var_export PHP_VERSION PHP_OS PHP_OS_FAMILY PHP_EOL PHP_INT_MAX "
    "PHP_INT_SIZE phpversion php_ini_loaded_file extension_loaded get_loaded_extensions "
    "function_exists class_exists ini_get json_encode json_decode JSON_PRETTY_PRINT "
    "JSON_UNESCAPED_SLASHES JSON_UNESCAPED_UNICODE strlen strtoupper strtolower ucfirst "
    "ucwords rtrim ltrim trim str_replace str_repeat str_pad substr strpos explode implode "
    "count array_sum array_keys array_values range in_array date time microtime mktime "
    "strtotime md5 sha1 crc32 hash hash_algos base64_encode base64_decode bin2hex hex2bin "
    "random_bytes random_int rand mt_rand uniqid password_hash password_verify "
    "PASSWORD_DEFAULT PASSWORD_BCRYPT PASSWORD_ARGON2ID intval floatval number_format "
    "elseif foreach as TRUE FALSE NULL DateTime format memory_get_usage getmypid"
)
_LUA = _COMMON + (
    " string format rep upper lower len sub byte char math pi huge tostring tonumber type pairs "
    "ipairs table concat insert remove unpack select local function end then elseif do repeat "
    "until nil and or not in break _VERSION io write read lines os time date clock"
)
# R splits into words at its dots (`R.version.string`, `Sys.time`): only the
# parts of read-only names are here (`file`, `system`, `setenv` are not).
_R = _COMMON + (
    " cat paste paste0 mean median sd var length nchar toupper tolower format seq rep c list "
    "head tail summary str sessionInfo R version string Sys time Date TRUE FALSE NULL NA Inf "
    "NaN T F function in nrow ncol dim names table unique rev letters LETTERS pi exp log "
    "is numeric character integer as message invisible seq_len seq_along sapply lapply vapply "
    "data frame matrix nlevels levels factor which any all cumsum prod range diff trimws "
    "substr substring gsub sub grepl regmatches toString print noquote capabilities "
    "R_HOME platform os type getRversion packageVersion utils"
)
# Tcl's `[cmd]` runs `cmd`: its words are read like the others' (the brackets go).
_TCL = (
    " puts info patchlevel tclversion nameofexecutable exists commands level expr set incr "
    "append string length toupper tolower trim trimleft trimright index range map first last "
    "repeat reverse is integer double list llength lindex lrange lsort lreverse lappend "
    "lsearch join split concat foreach if else elseif then for while proc return format "
    "clock seconds milliseconds dict get keys values create size abs min max round int "
    "nonewline stdout stderr flush tcl_version tcl_patchLevel tcl_platform break continue "
    "true false"
)
_LANGUAGE = {"node": "js", "nodejs": "js", "bun": "js", "irb": "ruby", "luajit": "lua",
             "rscript": "r", "tclsh": "tcl"}  # fmt: skip
_LEXICONS = {"node": _names(_JS), "nodejs": _names(_JS), "bun": _names(_JS),
             "irb": _names(_RUBY), "lua": _names(_LUA), "luajit": _names(_LUA),
             "perl": _names(_PERL), "ruby": _names(_RUBY), "php": _names(_PHP),
             "rscript": _names(_R), "r": _names(_R), "tclsh": _names(_TCL)}  # fmt: skip
# Strings where the language runs no code: single quotes, and double quotes
# without interpolation of expressions.
_INTERPOLATES = {"perl": ("@{", "${"), "ruby": ("#{",), "php": ("{$", "${"), "js": ("${",)}
_WORD = lazy_regex(r"[$@%]?[A-Za-z_]\w*[?!]?")
_SIGILS = {"perl": "$@%", "ruby": "$@", "php": "$", "tcl": "$"}
_DECLARED = {
    "js": lazy_regex(r"\b(?:const|let|var|function)\s+([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*=>"
                     r"|\(([\w\s,$]*)\)\s*=>"),
    "ruby": lazy_regex(r"(?:^|[;\s(])([a-z_]\w*)\s*=(?!=)|\|([\w\s,]*)\|"),
    "lua": lazy_regex(r"\blocal\s+([\w\s,]+?)\s*=|\bfor\s+([\w\s,]+?)\s+in\b|\bfor\s+(\w+)\s*="
                      r"|\bfunction\s*\w*\s*\(([\w\s,]*)\)"),
    "tcl": lazy_regex(r"\b(?:set|foreach|incr|lappend|append)\s+(\w+)"),
    "r": lazy_regex(r"(?<![\w.])([A-Za-z]\w*)\s*(?:<-|=(?!=))"),
}  # fmt: skip
_KEY = lazy_regex(r"([{,]\s*)[A-Za-z_$][\w$]*(\s*:(?!:))")
# Names a Ruby local variable may not take: a call with arguments still runs the method.
_RUBY_KERNEL = frozenset(
    {
        "system",
        "exec",
        "spawn",
        "eval",
        "open",
        "require",
        "load",
        "fork",
        "syscall",
        "send",
        "binding",
        "trap",
        "sleep",
        "exit",
        "abort",
        "autoload",
        "require_relative",
        "instance_eval",
        "test",
        "select",
    }
)
# Shapes that call or reach something by a computed name, in any of them.
_DYNAMIC_SHAPES = lazy_regex(
    r"::|->(?!\s*[A-Za-z_])|&\s*[\${]|\\|\$\$|\$\w+\s*\(|\)\s*\(|\]\s*\(|\b[SP]\s*\(|"
    r"[\w\])]\s*\[(?!-?\d+\])|%x|\bqx\b"
)
_SHELL_CALL = lazy_regex(r"\b(?:system|exec|shell_exec|passthru)\s*\(\s*P\s*\)")
_DENIED_VARIABLES = lazy_regex(r"[$%@]\{?(?:ENV|_ENV|_SERVER|GLOBALS)\b|\$\{")
# After these, a `/` starts a regular expression rather than a division.
_TERM_CHARS = frozenset("(,=~!;{}|&[?:")
_TERM_WORDS = frozenset({"if", "unless", "and", "or", "not", "split", "grep", "when", "return",
                         "while", "until", "x"})  # fmt: skip


def _words_harmless(family: str, code: str, lexicon: frozenset[str], carried: bool) -> bool:
    lang = _LANGUAGE.get(family, family)
    stripped = _strip_literals(lang, code)
    if stripped is None or "`" in stripped:
        return False
    if carried and lang in ("perl", "ruby", "php"):  # the analysis judges literal commands
        stripped = _SHELL_CALL.sub(" ", stripped)
    if lang == "tcl":  # `[info patchlevel]` runs its words; `$env(...)` reads secrets
        if "env" in stripped:
            return False
        stripped = stripped.replace("[", " ").replace("]", " ")
    if _DYNAMIC_SHAPES.search(stripped) or _DENIED_VARIABLES.search(stripped):
        return False
    if lang in ("js", "ruby"):  # object keys and symbols name nothing that runs
        stripped = _KEY.sub(r"\1K\2", stripped)
    declared = _declared(lang, stripped)
    sigils = _SIGILS.get(lang, "")
    for match in _WORD.finditer(stripped):
        word = match.group(0)
        if word[0] in sigils:
            continue  # a variable: harmless unless denied above
        word = word.lstrip("$@%")
        if word not in lexicon and word not in declared and word not in ("S", "P", "R", "K"):
            return False
    return True


def _strip_literals(lang: str, code: str) -> str | None:
    """The code with comments removed and strings and patterns as `S` and `R`,
    read left to right as the language does; `None` when a string would run
    code (interpolation, backticks, `s///e`) or does not end."""
    out: list[str] = []
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if _comment_starts(lang, code, i):
            end = code.find("*/", i + 2) if code.startswith("/*", i) else code.find("\n", i)
            i = n if end == -1 else end + (2 if code.startswith("/*", i) else 0)
            continue
        if c in "'\"`":
            end = _closing(code, i + 1, c)
            text = code[i:end]
            if end > n or (c == "`" and lang != "js"):
                return None
            if c != "'" and any(m in text for m in _INTERPOLATES.get(lang, ())):
                return None
            if lang == "tcl" and ("[" in text or c != '"'):
                return None  # a Tcl string runs its `[...]`; `'` quotes nothing there
            body = text[1:-1]
            plain = c != "`" and not any(ch in body for ch in "$@\\`{}#")
            out.append(" P " if plain else " S ")
            i = end
            continue
        pattern = _pattern_at(lang, code, i, "".join(out))
        if pattern is not None:
            end, flags, body = pattern
            if end > n or "e" in flags or any(m in body for m in ("@{", "${", "#{", "(?")):
                return None
            out.append(" R ")
            i = end
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _comment_starts(lang: str, code: str, i: int) -> bool:
    if lang in ("js", "php") and code.startswith(("//", "/*"), i):
        return True
    if lang == "lua":
        return code.startswith("--", i) and not code.startswith("--[[", i)
    hashed = lang in ("perl", "ruby", "php", "r", "tcl")
    return code[i] == "#" and hashed and not (i and code[i - 1] in "$\\")


def _closing(code: str, i: int, quote: str) -> int:
    """The index after the quote that closes a string begun before `i`."""
    while i < len(code):
        if code[i] == "\\":
            i += 2
            continue
        if code[i] == quote:
            return i + 1
        i += 1
    return len(code) + 1


def _pattern_at(lang: str, code: str, i: int, before: str) -> tuple[int, str, str] | None:
    """A regular expression or substitution starting at `i`: its end, flags, body."""
    if lang not in ("perl", "ruby", "js"):
        return None
    head = before.rstrip()
    last_word = re.search(r"[A-Za-z_]\w*\Z", head)
    prefix = ""
    if lang == "perl":
        match = re.match(r"(s|tr|y|m|qr)/", code[i:])
        previous = before[-1:]
        if match and not (previous and (previous.isalnum() or previous in "_$@%")):
            prefix = match.group(1)
    if not prefix:
        if code[i] != "/":
            return None
        term = not head or head[-1] in _TERM_CHARS or (last_word and last_word[0] in _TERM_WORDS)
        if not term:
            return None
    start = i + len(prefix) + 1
    end = _closing(code, start, "/")
    body = code[start : end - 1]
    if prefix in ("s", "tr", "y"):
        end = _closing(code, end, "/")
        body = code[start : end - 1]
    flags = re.match(r"[a-z]*", code[end:]) if end <= len(code) else None
    width = flags.end() if flags else 0
    return end + width, flags.group(0) if flags else "", body


def _declared(family: str, code: str) -> frozenset[str]:
    pattern = _DECLARED.get(family)
    if pattern is None:
        return frozenset()
    names: set[str] = set()
    for groups in pattern.findall(code):
        for group in groups if isinstance(groups, tuple) else (groups,):
            names.update(n.strip() for n in group.split(",") if n.strip())
    return frozenset(names - _RUBY_KERNEL) if family == "ruby" else frozenset(names)
