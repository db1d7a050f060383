"""The last resort behind a hook's deadline.

Every wait of a hook is bounded by its `Deadline` (the log's lock, the
database, the service, the session's lock). What no bound reaches (judging a
huge call, a slow disk, a machine so loaded the hook hardly runs) is caught
here: a thread that, at the deadline, writes the adapter's block
(`gate-timeout`) and ends the process, so the host is never left to kill the
hook (Claude Code, Codex and Gemini CLI would run the call). The hook's own
answer and the watchdog's are one claim apart: whichever writes first is the
answer. Only the hook process arms it (`redline hook`), never a caller that
judges in its own process.
"""

from __future__ import annotations

import os
from _thread import allocate_lock, start_new_thread  # `threading` stays unloaded

from redline.deadline import GATE_TIMEOUT, Deadline
from redline.hooks.base import HookAdapter, timed_out


class Watchdog:
    def __init__(self, deadline: Deadline, adapter: HookAdapter) -> None:
        self.deadline = deadline
        self.adapter = adapter
        self._claim = allocate_lock()

    def arm(self) -> Watchdog:
        start_new_thread(self._watch, ())
        return self

    def claim(self) -> None:
        """Take the right to answer; if the watchdog took it first, wait for it
        to end the process."""
        self._claim.acquire()

    def _watch(self) -> None:
        import time

        while (left := self.deadline.left()) > 0:
            time.sleep(left)
        if not self._claim.acquire(blocking=False):
            return  # the hook is writing its answer
        problem = f"the gate did not decide within the hook's deadline of {self.deadline.total:g} s"
        reply = self.adapter.failure(timed_out(problem), GATE_TIMEOUT)
        # Straight to the descriptors: the main thread may hold a stream's lock.
        try:
            if reply.stdout:
                os.write(1, reply.stdout.encode())
            if reply.stderr:
                os.write(2, reply.stderr.encode())
        except OSError:
            os._exit(2)
        os._exit(reply.code)
