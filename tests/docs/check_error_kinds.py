"""Fails when a list of the error kinds a worker's result may carry leaves one out: the kinds
are common/workload/error_kinds.h's kNames, the one place that names them, and each must be
named in the three places a worker author or a reader of the figures looks them up:
docs/WORKER_PROTOCOL.md's `errors` row ("What a result must contain"), docs/MEASUREMENT.md's
"Errors by kind" (in backticks) and WindowResult.errors' comment in proto/benchgate/v1/worker.proto
(in quotes).

Usage: check_error_kinds.py SOURCE_DIR
"""
import os
import re
import sys


def read(source, path):
    with open(os.path.join(source, path), encoding="utf-8") as f:
        return f.read()


def kinds(header):
    match = re.search(r"kNames\s*=\s*\{(.*?)\};", header, re.S)
    return re.findall(r'"([a-z_]+)"', match.group(1)) if match else []


def between(text, start, end):
    """The text from `start` to the next `end` after it, or None."""
    i = text.find(start)
    j = text.find(end, i + len(start)) if i >= 0 else -1
    return text[i:j] if j >= 0 else None


def main():
    source = sys.argv[1]
    names = kinds(read(source, "common/workload/error_kinds.h"))
    if not names:
        print("common/workload/error_kinds.h: no kNames list of error kinds")
        return 1
    # (file, where in it, the list's first words, the text after it, how a kind is quoted)
    places = [
        ("docs/WORKER_PROTOCOL.md", "its `errors` row", "| `errors` |", "\n", "`{}`"),
        ("docs/MEASUREMENT.md", "its \"Errors by kind\"", "- Errors by kind:", "\n- ", "`{}`"),
        ("proto/benchgate/v1/worker.proto", "WindowResult.errors' comment", "// Errors by kind:",
         "map<string, uint64> errors", '"{}"'),
    ]
    failed = False
    for path, where, start, end, quoted in places:
        text = between(read(source, path), start, end)
        if text is None:
            print(f"{path}: {where} is not there")
            failed = True
            continue
        for name in names:
            if quoted.format(name) not in text:
                print(f"{path}: {where} does not name the error kind {quoted.format(name)}")
                failed = True
    if not failed:
        print(f"the {len(names)} error kinds are named in each of {len(places)} lists")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
