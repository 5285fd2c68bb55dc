"""Fails when README.md's table of exit codes leaves out a gate verdict that docs/GATES.md's
table gives an exit code: each "critical gate with verdict `V`" of docs/GATES.md's row for a code
must be said in README's row for that code.

Usage: check_exit_codes.py SOURCE_DIR
"""
import os
import re
import sys

ROW = re.compile(r"^\|\s*(\d)\s*\|(.*)\|\s*$")
VERDICT = re.compile(r"critical gate with verdict `(\w+)`")


def table_after(path, heading):
    """The rows {code: text} of the first table after the line `heading`."""
    rows = {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = lines.index(heading)
    for line in lines[start + 1:]:
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = m.group(2)
        elif rows and not line.startswith("|"):
            break
    if not rows:
        raise SystemExit(f"{path}: no table of exit codes after {heading!r}")
    return rows


def main(source):
    readme = table_after(os.path.join(source, "README.md"), "## Exit codes")
    gates = table_after(os.path.join(source, "docs/GATES.md"),
                        "| exit | `orchestrator run` / `orchestrator gate` |")
    missing = []
    for code, text in gates.items():
        for verdict in VERDICT.findall(text):
            if f"verdict `{verdict}`" not in readme.get(code, ""):
                missing.append(f"exit {code}: a critical gate with verdict `{verdict}`")
    for m in missing:
        print(f"README.md, Exit codes: not said: {m} (docs/GATES.md says it)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
