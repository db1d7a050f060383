"""The rule catalogue: rules are data with their own examples (F-RULES)."""
