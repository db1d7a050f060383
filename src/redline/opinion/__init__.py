"""A language model's second opinion that can only tighten (F-APPROVE-6).

The gate decides first, deterministically; then, for the calls the policy's
`second_opinion.on` selects, `consult` asks an OpenAI-compatible chat API
what it thinks, within a time bound and an hourly budget, and may move the
verdict one step stricter (allow -> ask, ask -> deny). Nothing here can
loosen a verdict, touch a hard line or a deny, or change an owner's answer.

- `verdicts`: the pure part: the strict reply parser and `tighten`.
- `prompt`: the call as escaped data in a delimited block.
- `signals`: the risk signals that select an allowed call.
- `chat`: the bounded HTTP call to the chat API (no state kept).
- `budget`: `max_calls_per_hour`, shared by every hook process.
- `consult`: the step itself, and its log entry.
- `report`: `redline opinion report`.
"""
