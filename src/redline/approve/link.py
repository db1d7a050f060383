"""The link between the service and one of its judging workers: ordered
messages over a socket pair, each a length and a pickled tuple.

Both ends are processes of the owner started by the service itself, so
pickle is safe here; nothing else can reach the pair. A message is a tuple
whose first item names it (see `redline.approve.workers`).
"""

from __future__ import annotations

import asyncio
import pickle
import socket
import struct
from typing import Any

_HEADER = struct.Struct("!I")
MAX_MESSAGE = 64 * 1024 * 1024
"""A frame larger than this means a broken peer: the link is dropped."""


class LinkClosed(Exception):
    """The other end went away (or sent something that is not a message)."""


class Link:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._out: list[bytes] = []

    @classmethod
    async def over(cls, sock: socket.socket) -> Link:
        reader, writer = await asyncio.open_unix_connection(sock=sock)
        return cls(reader, writer)

    def send(self, *message: Any) -> None:
        """Queue a message. Messages go out in order, all those of one turn of
        the event loop in one write (a write per message cost more than the
        rest of sending it)."""
        if self._writer.is_closing():
            raise LinkClosed("the link is closed")
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        if not self._out:
            asyncio.get_running_loop().call_soon(self._flush)
        self._out.append(_HEADER.pack(len(data)))
        self._out.append(data)

    def _flush(self) -> None:
        out, self._out = self._out, []
        if not self._writer.is_closing():
            self._writer.write(b"".join(out))

    async def receive(self) -> tuple[Any, ...]:
        try:
            header = await self._reader.readexactly(_HEADER.size)
            (size,) = _HEADER.unpack(header)
            if size > MAX_MESSAGE:
                raise LinkClosed(f"a message of {size} bytes")
            message = pickle.loads(await self._reader.readexactly(size))  # noqa: S301 - our own peer
        except (asyncio.IncompleteReadError, ConnectionError) as err:
            raise LinkClosed(str(err) or "end of stream") from None
        if not isinstance(message, tuple) or not message or not isinstance(message[0], str):
            raise LinkClosed("a message that is not a named tuple")
        return message

    def close(self) -> None:
        self._writer.close()
