"""The approval log: a tamper-evident, hash-chained record of every gated call.

Submodules are imported on demand so that the hook path stays light: `entry`
and `chain` are pure values and hashing, `redact` is pure text work, `store`
opens a backend (`sqlite`, `postgres`), `recorder` turns decisions into entries.
"""
