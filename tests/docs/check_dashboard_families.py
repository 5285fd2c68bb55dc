"""Fails when a Grafana dashboard (dashboards/*.json) names a metric family nothing serves: every
name in a panel's query or a variable's label_values() must be a family of the orchestrator's
/metrics (the gauge(r, "...") and counter(r, "...") of orchestrator/metrics/metrics_observer.cc)
or of the router's (router/prometheus/snapshot_families.cc). A misspelt or dropped family is a
panel that stays empty without an error in Grafana; tests/e2e/test_prometheus.py finds it too,
but only with a real Prometheus and a real run.

Usage: check_dashboard_families.py SOURCE_DIR
"""
import glob
import json
import os
import re
import sys

# A family name as a query writes it: the two prefixes the project serves.
NAME = re.compile(r"\b((?:benchgate|process)_[a-zA-Z0-9_:]+)")
ORCHESTRATOR = re.compile(r'\b(?:gauge|counter|histogram)\(\s*r,\s*"([a-z0-9_]+)"')
ROUTER = re.compile(r'"((?:benchgate_router|process)_[a-z0-9_]+)"')
# The series a histogram or summary family is exposed as.
SERIES_SUFFIXES = ("_bucket", "_sum", "_count")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def served(source):
    names = set(ORCHESTRATOR.findall(read(os.path.join(source, "orchestrator", "metrics",
                                                       "metrics_observer.cc"))))
    names |= set(ROUTER.findall(read(os.path.join(source, "router", "prometheus",
                                                  "snapshot_families.cc"))))
    return names


def panels(holder):
    """Every panel of a dashboard, those inside a row too (a collapsed row holds its own)."""
    for panel in holder.get("panels", []):
        yield panel
        yield from panels(panel)


def queries(board):
    """(where, PromQL) of every panel target and every variable query."""
    for panel in panels(board):
        for target in panel.get("targets", []):
            yield f"panel '{panel.get('title')}'", target.get("expr", "")
    for variable in board.get("templating", {}).get("list", []):
        query = variable.get("query")
        if isinstance(query, dict):
            query = query.get("query", "")
        if isinstance(query, str):
            yield f"variable '{variable.get('name')}'", query


def is_served(name, families):
    if name in families:
        return True
    return any(name.endswith(s) and name[:-len(s)] in families for s in SERIES_SUFFIXES)


def main():
    source = sys.argv[1]
    families = served(source)
    if not families:
        print("no families found in metrics_observer.cc and snapshot_families.cc")
        return 1
    failed = False
    boards = sorted(glob.glob(os.path.join(source, "dashboards", "*.json")))
    checked = 0
    for path in boards:
        board = json.loads(read(path))
        for where, query in queries(board):
            for name in NAME.findall(query):
                checked += 1
                if not is_served(name, families):
                    print(f"dashboards/{os.path.basename(path)}: {where} names {name}, a family "
                          f"neither the orchestrator nor the router serves")
                    failed = True
    if not failed:
        print(f"dashboards/: {len(boards)} dashboards, {checked} family names, each served")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
