"""The policy file: model, loading, self-checks and the allowlist (F-GATE-4, F-GATE-6)."""
