"""uvicorn's HTTP protocol, with a reply's writes sent in one system call.

uvicorn writes a reply's head and its body separately, and uvloop sends each
at once: two `send` calls, and often two wake-ups of the hook waiting for
its answer. Every tool call is such a reply, and on a virtual machine a send
that wakes another process is among the dearest steps of answering it. Here
the transport gathers what is written during one turn of the event loop and
sends it together at the end of that turn, in order; closing sends what is
gathered first. Nothing else about uvicorn's protocol changes.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class GatheredWrites:
    """A transport whose writes within one turn of the loop go out as one."""

    __slots__ = ("_loop", "_out", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._out: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._out:
            self._loop.call_soon(self._flush)
        self._out.append(bytes(data))

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def _flush(self) -> None:
        out, self._out = self._out, []
        if out and not self._transport.is_closing():
            self._transport.write(b"".join(out))

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(map(len, self._out))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class OneWriteHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol on a `GatheredWrites` transport."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        gathered: Any = GatheredWrites(transport, self.loop)  # type: ignore[arg-type]
        super().connection_made(gathered)
