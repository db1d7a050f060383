"""Tool calls to decisions: actions, shape, never-run kinds, policy, memory (F-GATE)."""
