"""Throwaway certificates for tests, made with the openssl command: a CA of the test's own and a
server certificate for 127.0.0.1 and localhost signed by it (ca.pem, server.pem, server.key in
the folder given). Two folders give two CAs that do not trust each other's certificates."""
import os
import shutil
import subprocess

OPENSSL = shutil.which("openssl")


def make_certificate(directory):
    """A throwaway CA and a server certificate for 127.0.0.1 and localhost signed by it."""
    def openssl(*args):
        subprocess.run([OPENSSL, *args], cwd=directory, check=True, capture_output=True,
                       timeout=60)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=router e2e CA")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    with open(os.path.join(directory, "san.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.cnf")
