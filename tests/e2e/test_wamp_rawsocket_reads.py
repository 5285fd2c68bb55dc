"""How the real router reads RawSocket frames: a frame larger than the router's read buffer
that is already whole in the socket when the router wakes is answered.

The router reads a cleartext RawSocket socket itself once it is readable and, after a read that
emptied the socket, waits for the socket's next edge-triggered wake-up without asking the
kernel again (router/wamp/rawsocket_connection.cc). A frame of more than one buffer that
arrived whole while the router was not looking makes one wake-up only: if the router then waits
for another before reading the rest, it waits forever. The test makes that case certain instead
of likely: the router is stopped (SIGSTOP) while the whole frame goes into its socket, and
continued once the kernel holds every byte of it. Loopback only; every wait is bounded.
"""
import json
import os
import signal
import threading
import time
import unittest

from test_router_limits import Router, rawsocket_connect, rawsocket_read

MESSAGE = 0
TIMEOUT_S = 10


def frame(message):
    data = json.dumps(message).encode()
    return bytes([MESSAGE]) + len(data).to_bytes(3, "big") + data


def queued_at(port, peer_port):
    """Bytes waiting in the receive queue of the router's end of the connection from
    127.0.0.1:`peer_port` to its `port` (/proc/net/tcp: rx_queue), or None if it is not
    listed."""
    local = "0100007F:%04X" % port
    remote = "0100007F:%04X" % peer_port
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1] == local and fields[2] == remote:
                return int(fields[4].split(":")[1], 16)
    return None


class RawSocketReadsTest(unittest.TestCase):
    def call(self, s, request_id, text):
        s.sendall(frame([48, request_id, {}, "bench.echo", [text]]))
        return self.result(s, request_id)

    def result(self, s, request_id):
        kind, payload = rawsocket_read(s)
        self.assertEqual(kind, MESSAGE)
        answer = json.loads(payload)
        self.assertEqual(answer[:2], [50, request_id], str(answer)[:200])
        return answer[3][0]

    def test_a_frame_larger_than_the_read_buffer_that_arrived_whole_is_answered(self):
        with Router("--threads", "1") as router:
            port = router.ports["rawsocket"]
            with rawsocket_connect(port) as s:
                s.settimeout(TIMEOUT_S)
                s.sendall(frame([1, "realm1", {"roles": {"caller": {}}}]))
                self.assertEqual(json.loads(rawsocket_read(s)[1])[0], 2)  # WELCOME
                # Large calls first, so that the kernel's receive window of the router's
                # socket grows past the frame below (it starts near 64 KiB). Larger than the
                # 1 MiB a router thread keeps of a grown read buffer: the buffer is freed after
                # each, and the frame below meets a 64 KiB one.
                for request_id in range(1, 6):
                    self.assertEqual(len(self.call(s, request_id, "w" * 2_000_000)), 2_000_000)
                # A small call read whole: the router's last read emptied the socket, so it
                # waits for the next edge without a re-arm.
                self.assertEqual(self.call(s, 6, "small"), "small")
                time.sleep(0.2)  # the router back in epoll_wait; no timing is judged

                big = "b" * 400_000  # several 64 KiB read buffers
                data = frame([48, 7, {}, "bench.echo", [big]])
                os.kill(router.proc.pid, signal.SIGSTOP)
                try:
                    sender = threading.Thread(target=s.sendall, args=(data,))
                    sender.start()
                    peer_port = s.getsockname()[1]
                    deadline = time.monotonic() + TIMEOUT_S
                    queued = None
                    while time.monotonic() < deadline:
                        queued = queued_at(port, peer_port)
                        if queued == len(data):
                            break
                        time.sleep(0.01)
                    sender.join(TIMEOUT_S)
                    # Not a precondition that may pass by luck: without every byte in the
                    # router's socket before it runs again, the test would not test the case.
                    self.assertEqual(queued, len(data),
                                     "the router's socket did not take the whole frame")
                finally:
                    os.kill(router.proc.pid, signal.SIGCONT)
                self.assertEqual(self.result(s, 7), big)


if __name__ == "__main__":
    unittest.main()
