"""Shell analysis: commands as bash runs them, with no verdicts (F-SHELL)."""
