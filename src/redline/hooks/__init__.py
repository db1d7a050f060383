"""Agent hooks (F-HOOKS): thin adapters that turn a host's hook payload into a
tool call for the gate, and the gate's Decision into what the host reads.

Embedded mode: the hook decides in its own process with the local policy,
session state and approval log; no server is needed. Every adapter fails
closed: bad input, a broken policy, an unwritable log or an internal error
block the call in the way the host understands as a block.
"""
