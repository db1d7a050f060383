"""A reply's writes within one turn of the event loop leave in one send, in
order; closing sends what was gathered first; and the service's replies,
decisions and other routes alike, still arrive whole."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.approve.onewrite import GatheredWrites


class Recorded(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> None:
        assert not self.closed, "written after close"
        self.sent.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5)}.get(name, default)


def test_one_turns_writes_leave_together_in_order() -> None:
    async def run() -> list[bytes]:
        raw = Recorded()
        gathered = GatheredWrites(raw, asyncio.get_running_loop())
        gathered.write(b"HTTP/1.1 200 OK\r\n\r\n")
        gathered.write(bytearray(b"{}"))
        assert raw.sent == [] and gathered.get_write_buffer_size() == 21
        await asyncio.sleep(0)
        gathered.writelines([b"a", b"b"])
        await asyncio.sleep(0)
        assert gathered.get_extra_info("peername") == ("127.0.0.1", 5)  # the rest passes through
        return raw.sent

    assert asyncio.run(run()) == [b"HTTP/1.1 200 OK\r\n\r\n{}", b"ab"]


def test_closing_sends_what_was_gathered_first_and_nothing_after() -> None:
    async def run() -> Recorded:
        raw = Recorded()
        gathered = GatheredWrites(raw, asyncio.get_running_loop())
        gathered.write(b"last words")
        gathered.close()
        gathered.write(b"too late")  # dropped at the flush: the transport is closing
        await asyncio.sleep(0)
        return raw

    raw = asyncio.run(run())
    assert raw.sent == [b"last words"] and raw.closed
