"""The readers of files that run later never raise, whatever the text
(attack round 4: a makefile line that expands to an unknown reference read
itself until Python's recursion limit). Each reader is called bare here:
the gate's fallback (`runs_later.unreadable`) must not be what holds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from redline.runs_later import judge, make_syntax

_MAKE_TOKENS = [
    "$(", "${", ")", "}", "$$", "$@", "$<", "$^", "$(@D)", "eval ", "call ", "foreach ",
    "shell ", "file <", "file >", "value ", "origin ", "flavor ", "if ", "let ", "wildcard ",
    "intcmp ", "subst ", "X", "Y", "HOME", ",", ":", "::", "=", ":=", "+=", "?=", "!=", " ",
    "\n", "\t", "\\\n", "#", ";", "|", "%", "define X", "endef", "ifeq (a,b)", "ifdef X",
    "else", "endif", "include ", "undefine X", "override ", "export ", ".ONESHELL:",
    ".RECIPEPREFIX = >", ".SECONDEXPANSION:", "rm -rf ~", "'", '"', "`", "[[", "]]", "{{", "}}",
    "mod ", "import ", "```", "set ", "[", "]", '#!/usr/bin/env python3\n',
    # whole references, so that short texts reach the readers' deeper paths
    "\n$(FOO)\n", "$(eval $(X))", "$(call X,a)", "$(foreach m,a b,$(eval $(call T,$(m))))",
    "X = $(X) $(X)\n", "all: $(HOME)\n\trm -rf $<\n", "$(file <x)",
]  # fmt: skip
MAKEISH = st.lists(st.sampled_from(_MAKE_TOKENS), max_size=40).map("".join)
ANY_TEXT = st.one_of(MAKEISH, st.text(max_size=120))


@settings(max_examples=150, deadline=None)
@given(MAKEISH)
def test_make_and_just_readers_never_raise(text: str) -> None:
    assert isinstance(make_syntax._make_commands(text), list)
    assert isinstance(make_syntax._just_commands(text), list)
    make_syntax.definition_values(text)


@settings(max_examples=40, deadline=None)
@given(ANY_TEXT)
def test_every_reader_never_raises(text: str) -> None:
    for reader in judge._READERS.values():
        reader(text)
    for unseen in judge._UNSEEN.values():
        unseen(text)


def test_lines_that_expand_to_unknown_text_are_read_once() -> None:
    """The shapes that recursed on main: a bare reference, a template
    evaluated per module, an evaluated file, an eval inside an eval."""
    for text in (
        "$(FOO)\nall:\n\techo ok\n",
        "$(foreach m,$(MODULES),$(eval $(call module_template,$(m))))\n",
        "x := $(file <rules.txt)\n$(eval $(x))\n",
        "$(eval $(eval $(eval $(BAR))))\n",
        "X = $$(X)\n$(X)\n",
        "X := a a\n" + "X := $(X) $(X)\n" * 40,
        ")=$(eval =",  # a value whose expansion defines a variable
    ):
        assert isinstance(make_syntax._make_commands(text), list)
        make_syntax.definition_values(text)
