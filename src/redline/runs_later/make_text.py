"""Make's text functions (`patsubst`, `filter`, `wordlist`, `dir`...):
pure functions of their arguments' text, as GNU make computes them."""

from __future__ import annotations

from collections.abc import Callable

# A computed value no reading can know: a word the analysis asks about
# (`$(wordlist x,y,...)` of words that are not numbers).
UNKNOWN = "${MAKE_COMPUTED_VALUE}"


def patsubst(pattern: str, replacement: str, text: str) -> str:
    head, percent, tail = pattern.partition("%")
    words = []
    for word in text.split():
        if not percent:
            words.append(replacement if word == pattern else word)
        elif word.startswith(head) and word.endswith(tail) and len(word) >= len(head + tail):
            stem = word[len(head) : len(word) - len(tail)]
            words.append(replacement.replace("%", stem, 1))
        else:
            words.append(word)
    return " ".join(words)


def filter_words(keep: bool) -> Callable[..., str]:
    def function(patterns: str, text: str = "") -> str:
        def hit(word: str) -> bool:
            for p in patterns.split():
                head, percent, tail = p.partition("%")
                if word == p or (percent and word.startswith(head) and word.endswith(tail)):
                    return True
            return False

        return " ".join(w for w in text.split() if hit(w) is keep)

    return function


def wordlist(first: str, last: str = "", text: str = "") -> str:
    try:
        start, end = int(first), int(last)
    except ValueError:
        return UNKNOWN
    return " ".join(text.split()[max(start, 1) - 1 : end])


def dir_of(text: str) -> str:
    return " ".join((w.rsplit("/", 1)[0] + "/") if "/" in w else "./" for w in text.split())


def each_word(function: Callable[[str], str]) -> Callable[..., str]:
    return lambda text="": " ".join(function(w) for w in text.split())


def nth(n: str, text: str = "") -> str:
    words = text.split()
    return words[int(n) - 1] if n.strip().isdigit() and 0 < int(n) <= len(words) else ""
