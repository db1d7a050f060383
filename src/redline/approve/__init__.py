"""The approval service (F-APPROVE): the one package that waits on humans.

`redline serve` runs `service.Service` behind `app.build` on a Unix socket for
hooks, an owner-only socket for the owner's terminal, and optionally loopback
HTTP for the web page. Hooks reach it through `client`, which verifies every
signed answer (`signing`) and fails closed.
"""
