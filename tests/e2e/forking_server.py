"""A `command` system under test shaped like nginx: the process the orchestrator spawns binds
the port and forks a child that serves HTTP/1.1 keep-alive (`/bench/hello`, "Hello, world"),
then only waits, as nginx's master does for its worker processes.

    forking_server.py PORT [--setsid]

--setsid: the serving child leaves the process group and session (as a daemon would), so only
a cgroup finds it. The child writes its pid to $BENCHGATE_SUT_DIR/server.pid when the
orchestrator gives it that folder.
"""
import http.server
import os
import sys

BODY = b"Hello, world"


class Hello(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed ACK

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


def main():
    port = int(sys.argv[1])
    server = http.server.HTTPServer(("127.0.0.1", port), Hello)
    child = os.fork()
    if child == 0:
        if "--setsid" in sys.argv:
            os.setsid()
        folder = os.environ.get("BENCHGATE_SUT_DIR")
        if folder:
            with open(os.path.join(folder, "server.pid"), "w") as f:
                f.write(str(os.getpid()))
        server.serve_forever()
        os._exit(0)
    server.socket.close()
    os.waitpid(child, 0)


if __name__ == "__main__":
    main()
