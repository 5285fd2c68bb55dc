"""An HTTP/1.1 server over TLS for the end-to-end tests, independent of benchgate (Python's
http.server and ssl): GET /hello answers 9 bytes with Content-Length and keep-alive, and every
request is counted. On SIGTERM it writes {"requests": N, "version": ..., "cipher": ...,
"alpn": ..., "connections": C, "resumed": R, "most_requests_per_connection": M} (the TLS of its
last connection, as OpenSSL on its side saw it; the connections that sent a request, those whose
handshake resumed a session, and the most requests one connection sent) to COUNT_FILE.

  tls_http1_server.py PORT_FILE COUNT_FILE CERT KEY
It listens on 127.0.0.1, an ephemeral port written to PORT_FILE once it accepts.
"""
import http.server
import json
import os
import signal
import ssl
import sys
import threading

count = 0
connections = 0
resumed = 0
most_per_connection = 0
last_tls = {}
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes

    def do_GET(self):
        global count, connections, resumed, most_per_connection
        self.requests_here = getattr(self, "requests_here", 0) + 1
        body = b"hello h1\n" if self.path == "/hello" else b""
        status = 200 if self.path == "/hello" else 404
        with lock:
            count += 1
            if self.requests_here == 1:
                connections += 1
                resumed += 1 if self.connection.session_reused else 0
            most_per_connection = max(most_per_connection, self.requests_here)
            last_tls.update(version=self.connection.version(),
                            cipher=self.connection.cipher()[0],
                            alpn=self.connection.selected_alpn_protocol() or "")
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    port_file, count_file, cert, key = sys.argv[1:5]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["http/1.1"])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)

    def stop(*_):
        with lock:
            with open(count_file, "w") as f:
                json.dump(dict(requests=count, connections=connections, resumed=resumed,
                               most_requests_per_connection=most_per_connection, **last_tls), f)
        threading.Thread(target=server.shutdown).start()

    signal.signal(signal.SIGTERM, stop)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
