"""The program names the never-run checks test each invocation against,
kept apart from the modules that judge those programs: an everyday command
(`ls`, `grep`) is told from them without loading those modules (a hook
starts once per tool call)."""

# Agents that may start another agent (`agent_launch`).
AGENTS = frozenset({"claude", "codex", "gemini", "hermes", "claude-code", "qwen", "opencode"})
# Package managers that may change the gate's installed package (`agent_launch`).
PACKAGERS = frozenset({"pip", "pip3", "pipx", "uv", "conda", "mamba", "poetry", "pdm"})
# Programs that may rewrite the gate's own code trees (`code_trees`).
CODE_TREE_PROGRAMS = frozenset({"git", "patch", "pyenv", "asdf", "uv"})
