"""Claude Code sub-agent and skill definitions that carry hooks.

A sub-agent (`.claude/agents/NAME.md`) or a skill (`.claude/skills/NAME/
SKILL.md`), in a project, in `~/.claude` or in a plugin, may declare
`hooks:` in its YAML front matter: hooks the agent chose, which run after
redline's allow. Writing one is changing the gate; a definition without
hooks is ordinary work.
"""

from __future__ import annotations

from redline.shell.lazy_regex import lazy_regex

_HOOKS_KEY = lazy_regex(r"(?m)^[ \t]*[\"']?hooks[\"']?[ \t]*:")
# Hook events a sub-agent or skill may declare (an edit's text names one).
_EVENTS = ("pretooluse", "posttooluse", "stop:", "subagentstop", "permissionrequest",
           "userpromptsubmit", "sessionstart", "notification:")  # fmt: skip


def is_definition(path: str) -> bool:
    lowered = path.lower().replace("\\", "/")
    if not lowered.endswith(".md"):
        return False
    return (
        "/agents/" in lowered or "/skills/" in lowered or lowered.startswith(("agents/", "skills/"))
    )


def declares_hooks(text: str, path: str) -> bool:
    """`text`, written to `path`, is an agent or skill definition whose
    front matter declares hooks."""
    if "hooks" not in text.lower() or not is_definition(path):
        return False
    body = text.lstrip("\ufeff \t\r\n")
    if not body.startswith("---"):
        # A piece of the file (an edit's new text): hooks named under a key.
        lowered = body.lower()
        named = any(event in lowered for event in _EVENTS)
        return named and _HOOKS_KEY.search(lowered) is not None
    end = body.find("\n---", 3)
    front = body[3:] if end < 0 else body[3:end]
    return _HOOKS_KEY.search(front.lower()) is not None
