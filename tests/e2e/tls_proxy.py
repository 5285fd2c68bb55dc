"""A TLS-terminating TCP proxy for the end-to-end tests, independent of benchgate (Python's ssl
and socket): it accepts TLS on each LISTEN port and relays the decrypted bytes, both ways, to
the matching TARGET port on 127.0.0.1, so a cleartext server (the bundled router) is reached
over TLS. On SIGTERM it writes {"connections": {"PORT": N, ...}, "version": ..., "alpn": ...}
(connections per listening port, the TLS of the last handshake as OpenSSL on its side saw it)
to STATS_FILE.

  tls_proxy.py PORT_FILE STATS_FILE CERT KEY TARGET_PORT...
For each TARGET_PORT it listens on an ephemeral port of 127.0.0.1; PORT_FILE gets the listening
ports, one a line in the order of the targets, once it accepts.
"""
import json
import os
import signal
import socket
import ssl
import sys
import threading

lock = threading.Lock()
connections = {}
last_tls = {}


def pump(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    for s in (sink, source):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(listener, context, listen_port, target_port):
    while True:
        try:
            raw, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=relay, args=(raw, context, listen_port, target_port),
                         daemon=True).start()


def relay(raw, context, listen_port, target_port):
    try:
        tls = context.wrap_socket(raw, server_side=True)
    except (OSError, ssl.SSLError):
        raw.close()
        return
    with lock:
        connections[str(listen_port)] = connections.get(str(listen_port), 0) + 1
        last_tls.update(version=tls.version(), alpn=tls.selected_alpn_protocol() or "")
    upstream = socket.create_connection(("127.0.0.1", target_port))
    upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    tls.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    back = threading.Thread(target=pump, args=(upstream, tls), daemon=True)
    back.start()
    pump(tls, upstream)
    back.join()
    tls.close()
    upstream.close()


def main():
    port_file, stats_file, cert, key = sys.argv[1:5]
    targets = [int(p) for p in sys.argv[5:]]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["http/1.1"])
    ports = []
    for target in targets:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        port = listener.getsockname()[1]
        ports.append(port)
        threading.Thread(target=serve, args=(listener, context, port, target),
                         daemon=True).start()
    done = threading.Event()

    def stop(*_):
        with lock:
            with open(stats_file, "w") as f:
                json.dump(dict(connections=connections, **last_tls), f)
        done.set()

    signal.signal(signal.SIGTERM, stop)
    with open(port_file + ".tmp", "w") as f:
        f.write("\n".join(str(p) for p in ports) + "\n")
    os.rename(port_file + ".tmp", port_file)
    done.wait()


if __name__ == "__main__":
    main()
