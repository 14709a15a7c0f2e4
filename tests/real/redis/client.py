#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""tests/real/test_redis: a steady redis client. One connection sends the
command ARGS, reads the whole reply, pauses PAUSE ms, and again, until
killed. Each request's start (CLOCK_REALTIME, us), latency (us) and
status (OK, or ERR for an error reply) go to LOG, a line each: the ground
truth (tests/real/client.jq).
    client.py PORT PAUSE LOG ARGS...
"""
import socket
import sys
import time


def reply_end(buf, i):
    """The end of the RESP reply that starts at buf[i], None if incomplete."""
    j = buf.find(b"\r\n", i)
    if j < 0:
        return None
    kind, value, j = buf[i:i + 1], buf[i + 1:j], j + 2
    if kind in (b"+", b"-", b":", b"_", b"#", b","):
        return j
    n = int(value)
    if kind == b"$":
        return j if n < 0 else (j + n + 2 if len(buf) >= j + n + 2 else None)
    if kind in (b"*", b"%", b"~"):
        for _ in range(max(n, 0) * (2 if kind == b"%" else 1)):
            j = reply_end(buf, j)
            if j is None:
                return None
        return j
    raise ValueError("unexpected RESP type %r" % kind)


def main():
    port, pause, log = int(sys.argv[1]), float(sys.argv[2]) / 1000, sys.argv[3]
    args = [a.encode() for a in sys.argv[4:]]
    request = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    with open(log, "w", buffering=1) as out:  # a line at a time: killed by a signal
        while True:
            buf = b""
            t0 = time.time_ns()
            sock.sendall(request)
            while True:
                data = sock.recv(1 << 16)
                if not data:
                    sys.exit("client.py: the server closed the connection")
                buf += data
                if reply_end(buf, 0) is not None:
                    break
            t1 = time.time_ns()
            out.write("%d %d %s\n" % (t0 // 1000, (t1 - t0) // 1000, "ERR" if buf[:1] == b"-" else "OK"))
            time.sleep(pause)


main()
