"""Fails when a TOML example of docs/SCENARIOS.md does not validate once completed minimally.

A reader copies an example and adds what it leaves out: the scenario's `name` when the example
has none, and one `[[workloads]]` (a name only) when it has none. Each example so completed must
pass `orchestrator validate`: an example that needs more than that to load (a missing key, a
value the loader refuses) teaches something that does not run.

The files an example names are given to it as the repository has them (scenarios/wamp_auth,
scenarios/nginx.conf), and certs/ca.pem as text in PEM form (validate reads only its form).

Usage: check_scenario_examples.py SOURCE_DIR ORCHESTRATOR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"^```toml\n(.*?)^```", re.S | re.M)
TOP_LEVEL_NAME = re.compile(r"^name\s*=", re.M)
PEM = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"


def completed(example):
    # Top-level keys are those before the first table header.
    header = re.search(r"^\[", example, re.M)
    top = example[: header.start()] if header else example
    text = example
    if not TOP_LEVEL_NAME.search(top):
        text = 'name = "example"\n' + text
    if not re.search(r"^\[\[workloads\]\]", example, re.M):
        text += '\n[[workloads]]\nname = "w"\n'
    return text


def main():
    source, orchestrator = sys.argv[1], os.path.abspath(sys.argv[2])
    with open(os.path.join(source, "docs/SCENARIOS.md"), encoding="utf-8") as f:
        doc = f.read()
    examples = [(doc.count("\n", 0, m.start()) + 2, m.group(1)) for m in BLOCK.finditer(doc)]
    if not examples:
        print("docs/SCENARIOS.md: no ```toml example found")
        return 1
    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        shutil.copytree(os.path.join(source, "scenarios", "wamp_auth"),
                        os.path.join(folder, "wamp_auth"))
        shutil.copy(os.path.join(source, "scenarios", "nginx.conf"), folder)
        os.mkdir(os.path.join(folder, "certs"))
        with open(os.path.join(folder, "certs", "ca.pem"), "w", encoding="utf-8") as f:
            f.write(PEM)
        for line, example in examples:
            path = os.path.join(folder, "example_%d.toml" % line)
            with open(path, "w", encoding="utf-8") as f:
                f.write(completed(example))
            run = subprocess.run([orchestrator, "validate", path], cwd=folder,
                                 capture_output=True, text=True, check=False)
            if run.returncode != 0:
                failures += 1
                print("docs/SCENARIOS.md:%d: the example does not validate once completed:\n%s%s"
                      % (line, run.stdout, run.stderr))
    print("%d of %d examples validate" % (len(examples) - failures, len(examples)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
