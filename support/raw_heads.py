"""A request head sent byte by byte to a server on 127.0.0.1, as the probe sent it: a
blocking socket (run it in a thread beside an event loop that serves), so that an answer
that arrives before the server's reset is still read."""

from __future__ import annotations

import select
import socket

CHUNK = 64 * 1024


def sent_until_answered(
    port: int, head: bytes, total: int, *, wait_seconds: float = 30.0
) -> tuple[bytes, int]:
    """Send `head`, then one header's bytes up to `total`, until the server answers, resets
    or closes: the answer's status line (empty when none came) and the bytes sent."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait_seconds) as sock:
        sent = 0
        filler = b"a" * CHUNK
        try:
            sock.sendall(head)
            sent = len(head)
            while sent < total:
                # Stop once the server has answered (or closed): readable before writable.
                readable, writable, _ = select.select([sock], [sock], [], wait_seconds)
                if readable or not writable:
                    break
                sent += sock.send(filler)
        except (ConnectionResetError, BrokenPipeError):
            pass
        answer = b""
        try:
            while b"\r\n" not in answer:
                received = sock.recv(4096)
                if not received:
                    break
                answer += received
        except (ConnectionResetError, TimeoutError):
            pass
    return answer.split(b"\r\n", 1)[0], sent
