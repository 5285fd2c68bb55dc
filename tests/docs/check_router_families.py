"""Fails when README's list of the router's /metrics families ("Prometheus and Grafana", the
paragraph that starts "The router serves its own metrics") is not exactly the families the
router serves: the metric names written in router/prometheus/snapshot_families.cc, the one
place that names them.

In README a name is in backticks; `benchgate_router_http_{received,sent}_bytes_total` stands
for both names, and braces that end a name are its labels (`..._requests_total{route,status}`).

Usage: check_router_families.py SOURCE_DIR
"""
import itertools
import os
import re
import sys

START = "The router serves its own metrics with"
END = "It is served by the orchestrator's HTTP/1.1 listener above"
# A served name as a string literal of the code.
LITERAL = re.compile(r'"((?:benchgate_router|process)_[a-z0-9_]+)"')
# A documented name: parts of a name with {a,b} alternatives between them, then labels.
DOCUMENTED = re.compile(
    r"`((?:benchgate_router|process)_(?:[a-z0-9_]+|\{[a-z0-9_,]+\}(?=[a-z0-9_]))+)(?:\{[a-z0-9_,]*\})?`")


def expand(name):
    """`a_{x,y}_b` -> a_x_b, a_y_b."""
    parts = re.split(r"\{([a-z0-9_,]+)\}", name)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return {"".join(c) for c in itertools.product(*choices)}


def documented(readme):
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    start = text.find(START)
    end = text.find(END, start)
    if start < 0 or end < 0:
        return None
    names = set()
    for match in DOCUMENTED.finditer(text[start:end]):
        names |= expand(match.group(1))
    return names


def served(source_file):
    with open(source_file, encoding="utf-8") as f:
        return set(LITERAL.findall(f.read()))


def main():
    source = sys.argv[1]
    listed = documented(os.path.join(source, "README.md"))
    if listed is None:
        print(f"README.md: no paragraph from '{START}' to '{END}'")
        return 1
    names = served(os.path.join(source, "router", "prometheus", "snapshot_families.cc"))
    failed = False
    for name in sorted(names - listed):
        print(f"README.md: the router serves {name} on /metrics; its list does not name it")
        failed = True
    for name in sorted(listed - names):
        print(f"README.md: lists {name} among the router's /metrics families; it serves none")
        failed = True
    if not failed:
        print(f"README.md lists the router's {len(names)} /metrics families")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
