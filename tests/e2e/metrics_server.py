"""A `command` system under test with a Prometheus endpoint, for test_sut_metrics.py: it
serves HTTP/1.1 keep-alive on 127.0.0.1 and counts what it serves.

    metrics_server.py PORT LOG

GET /bench/hello: "Hello, world", counted in sut_requests_total and sut_latency_seconds.
GET /metrics: the text exposition (a counter, a gauge, a histogram, an untyped sample, a
counter that goes down on every scrape); every scrape appends the values it served to LOG as
one JSON line, so the test knows the exact delta between two scrapes.
GET /broken: an exposition whose line 3 is malformed.
"""
import http.server
import json
import sys
import threading

BODY = b"Hello, world"
LOCK = threading.Lock()
STATE = {"requests": 0, "scrapes": 0}
LABELS = 'path="/bench/hello",note="a \\"quoted\\" \\\\ value"'


def exposition(requests, scrapes):
    return (
        "# HELP sut_requests Requests served.\n"
        "# TYPE sut_requests counter\n"
        f"sut_requests_total{{{LABELS}}} {requests} 1700000000000\n"
        "# TYPE sut_scrapes_total counter\n"
        f"sut_scrapes_total {scrapes}\n"
        "# TYPE sut_countdown_total counter\n"
        f"sut_countdown_total {1000 - scrapes}\n"
        "# TYPE sut_in_flight gauge\n"
        "sut_in_flight 1\n"
        "# TYPE sut_latency_seconds histogram\n"
        f'sut_latency_seconds_bucket{{le="+Inf"}} {requests}\n'
        f"sut_latency_seconds_sum {requests * 0.0005 + 0.25}\n"
        f"sut_latency_seconds_count {requests}\n"
        "sut_untyped_total 5\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed ACK

    def answer(self, body, content_type="text/plain"):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/bench/hello":
            with LOCK:
                STATE["requests"] += 1
            self.answer(BODY)
        elif self.path == "/metrics":
            with LOCK:
                STATE["scrapes"] += 1
                requests, scrapes = STATE["requests"], STATE["scrapes"]
                with open(sys.argv[2], "a") as log:
                    log.write(json.dumps({"requests": requests, "scrapes": scrapes}) + "\n")
            self.answer(exposition(requests, scrapes).encode(), "text/plain; version=0.0.4")
        elif self.path == "/broken":
            self.answer(b"# TYPE c counter\nc 1\nc{ 2\n")
        else:
            self.send_error(404)

    def log_message(self, *args):
        pass


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
