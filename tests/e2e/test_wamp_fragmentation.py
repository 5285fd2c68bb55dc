"""WebSocket fragmentation through the real binaries.

A raw-socket WebSocket client written here from RFC 6455 (standard library only, so the
frames on the wire are exactly the ones the test builds and reads) talks to the router binary
started with --ws-fragment-bytes: a HELLO split into three frames with a ping between them
is reassembled, and a RESULT larger than the fragment size comes back as a text frame and
continuation frames of exactly that size. Then the orchestrator runs a wamp_rpc workload
whose worker sends every CALL in 4 KiB frames to a router that answers in 4 KiB frames, and
the router's frame counters agree exactly with the workers' operations.
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import unittest

from harness import BIN, Run, kill_tagged, load_json, write_scenario

ROUTER = os.path.join(BIN, "router")
TIMEOUT = 10


def masked_frame(fin, opcode, payload):
    header = bytes([(0x80 if fin else 0) | opcode])
    size = len(payload)
    if size < 126:
        header += bytes([0x80 | size])
    elif size <= 0xFFFF:
        header += bytes([0x80 | 126]) + struct.pack("!H", size)
    else:
        header += bytes([0x80 | 127]) + struct.pack("!Q", size)
    key = os.urandom(4)
    return header + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


class RawWebSocket:
    def __init__(self, port):
        self.pongs = []
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
             "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: wamp.2.json\r\n\r\n").encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("closed during the upgrade")
            response += chunk
        head, self.pending = response.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(head.decode(errors="replace"))

    def exactly(self, n):
        while len(self.pending) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.pending += chunk
        out, self.pending = self.pending[:n], self.pending[n:]
        return out

    def read_frame(self):
        """(fin, opcode, payload) of the next frame; the server's frames are unmasked."""
        first, second = self.exactly(2)
        if second & 0x80:
            raise AssertionError("a server frame must not be masked")
        size = second & 0x7F
        if size == 126:
            size = struct.unpack("!H", self.exactly(2))[0]
        elif size == 127:
            size = struct.unpack("!Q", self.exactly(8))[0]
        return bool(first & 0x80), first & 0x0F, self.exactly(size)

    def read_message(self):
        """The frames of the next data message (pongs are collected apart)."""
        frames = []
        while True:
            fin, opcode, payload = self.read_frame()
            if opcode == 0xA:
                self.pongs.append(payload)
                continue
            frames.append((fin, opcode, payload))
            if fin:
                return frames


    def send_fragments(self, payload, size, ping_after_first=False):
        pieces = [payload[i:i + size] for i in range(0, len(payload), size)]
        for i, piece in enumerate(pieces):
            self.sock.sendall(masked_frame(i == len(pieces) - 1, 0x1 if i == 0 else 0x0, piece))
            if i == 0 and ping_after_first:
                self.sock.sendall(masked_frame(True, 0x9, b"between"))


class RouterProcess:
    def __init__(self, *extra):
        self.process = subprocess.Popen([ROUTER, *extra], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"router did not start: {line!r}")
        fields = dict(word.split("=", 1) for word in line.split()[1:])
        self.ws_port = int(fields["ws"].rsplit(":", 1)[1])

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=TIMEOUT)
        self.process.stdout.close()
        self.process.stderr.close()


class RouterFragmentationTest(unittest.TestCase):
    def test_fragments_are_reassembled_and_answers_leave_in_frames_of_the_flag_size(self):
        router = RouterProcess("--ws-fragment-bytes", "1024")
        self.addCleanup(router.stop)
        ws = RawWebSocket(router.ws_port)
        hello = json.dumps([1, "realm1", {"roles": {"caller": {}}}]).encode()
        ws.send_fragments(hello, 10, ping_after_first=True)
        welcome = ws.read_message()
        self.assertEqual(json.loads(b"".join(p for _, _, p in welcome))[0], 2)
        self.assertEqual(ws.pongs, [b"between"], "the ping between fragments was answered")

        argument = "".join(chr(ord("a") + i % 26) for i in range(5000))
        call = json.dumps([48, 7, {}, "bench.echo", [argument]]).encode()
        ws.send_fragments(call, 1000)
        frames = ws.read_message()
        self.assertGreater(len(frames), 1)
        self.assertEqual([op for _, op, _ in frames], [0x1] + [0x0] * (len(frames) - 1),
                         "a text frame, then continuation frames")
        self.assertEqual([fin for fin, _, _ in frames], [False] * (len(frames) - 1) + [True])
        self.assertTrue(all(len(p) == 1024 for _, _, p in frames[:-1]),
                        [len(p) for _, _, p in frames])
        self.assertLessEqual(len(frames[-1][2]), 1024)
        result = json.loads(b"".join(p for _, _, p in frames))
        self.assertEqual(result, [50, 7, {}, [argument]])
        ws.sock.close()


SCENARIO = """
name = "e2e_wamp_fragmentation"
[router]
impl = "builtin"
ws_fragment_bytes = "4KiB"

[defaults]
warmup = "200ms"
duration = "500ms"
repetitions = 2
threads = 1

[[workloads]]
name = "rpc_ws_msgpack_64k_in_4k_frames"
protocol = "wamp_rpc"
transport = "websocket"
serializer = "msgpack"
request_bytes = "64KiB"
fragment_bytes = "4KiB"
connections = 2
in_flight = 2
"""


class WorkerFragmentationTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="benchgate-e2e-wamp-frag-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.runs = []

    def tearDown(self):
        for run in self.runs:
            kill_tagged(run.tag)

    def test_calls_and_results_travel_in_4k_frames_counted_by_the_router(self):
        path = write_scenario(self.dir, "frag.toml", SCENARIO)
        out = os.path.join(self.dir, "out.json")
        run = Run(["run", path, "--json", out])
        self.runs.append(run)
        run.run(timeout=180)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.leftovers(), [], "processes left behind")
        self.assertIn("over websocket/msgpack, 65536 B, 2 sessions x 2 in flight, sent in 4096 B "
                      "frames", run.stdout)
        report = load_json(out)
        workload = report["scenarios"][0]["workloads"][0]
        self.assertEqual(workload["parameters"]["wamp"]["fragment_bytes"], 4096)
        for rep in workload["repetitions"]:
            self.assertEqual(rep["errors"], 0)
            operations = rep["operations"]
            self.assertGreater(operations, 0)
            counters = rep["router"]["counters"]
            self.assertEqual(counters["wamp_calls_routed"], operations)
            # A CALL or RESULT of 64 KiB plus an envelope of a few bytes: 16 full frames of
            # 4 KiB and one short one, every message fragmented.
            for direction in ("in", "out"):
                self.assertEqual(
                    counters[f"wamp_websocket_fragmented_messages{{direction={direction}}}"],
                    operations, direction)
                self.assertEqual(counters[f"wamp_websocket_frames{{direction={direction}}}"],
                                 17 * operations, direction)


if __name__ == "__main__":
    unittest.main()
