"""A real headless Chromium driven over the DevTools protocol (stdlib only).

Chromium is started with --remote-debugging-pipe: commands go to its file descriptor 3 and
answers come from 4, each a JSON object ending with a NUL byte. The page is opened, and
everything it does is recorded: JavaScript exceptions and console errors, and every request
it makes, so a test can demand that a page fetches nothing outside itself. Then the test can
evaluate expressions in the page and save a screenshot of the whole page.
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time


def chromium():
    """The Chromium executable, or None when it is not installed (Debian package chromium)."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, timeout=60):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="benchgate-chromium-")
        commands_r, self._commands_w = os.pipe()
        self._answers_r, answers_w = os.pipe()

        def descriptors():
            # Through copies: a pipe that already is descriptor 3 or 4 would otherwise keep
            # its close-on-exec flag (dup2 onto itself changes nothing), or be overwritten.
            commands, answers = os.dup(commands_r), os.dup(answers_w)
            os.dup2(commands, 3)
            os.dup2(answers, 4)

        self.proc = subprocess.Popen(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--remote-debugging-pipe", "--user-data-dir=" + self.profile, "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--disable-component-update",
             "--disable-default-apps", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            # dup2 leaves 3 and 4 inheritable; every other descriptor of this process is
            # close-on-exec (Python's default), so nothing else leaks into Chromium.
            preexec_fn=descriptors, close_fds=False)
        os.close(commands_r)
        os.close(answers_w)
        self._buffer = b""
        self._next_id = 0
        self.events = []
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True, session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(domain + ".enable")

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except Exception:  # noqa: BLE001 - closing is best effort; the process is killed next
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._commands_w)
        os.close(self._answers_r)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._answers_r, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=True, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._commands_w, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method):
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._read_message(deadline))

    def open(self, url):
        """Navigates and waits for the load event."""
        self.events = []
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
        # Anything the page does right after load (a script, a late request) arrives too.
        self.evaluate("1")

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluating {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def errors(self):
        """JavaScript exceptions, console errors and log errors, as text."""
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(json.dumps(params["exceptionDetails"]))
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                out.append(json.dumps(params.get("args")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                out.append(params["entry"].get("text", ""))
        return out

    def requests(self):
        """The URL of every request the page made (the page itself included)."""
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, path, width=1100):
        """The whole page as a PNG."""
        height = self.evaluate("document.documentElement.scrollHeight")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=min(height, 16000),
                  deviceScaleFactor=1, mobile=False)
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
