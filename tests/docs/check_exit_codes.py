"""Fails when README.md's table of exit codes leaves out a gate verdict that docs/GATES.md's
table gives an exit code: each "critical gate with verdict `V`" of docs/GATES.md's row for a code
must be said in README's row for that code.

Given the orchestrator binary too, it also fails when a command's --help lists exit codes
("(exit 0 valid, 2 invalid, ...)" in its description) that README does not: each such command
needs README's sentence "`COMMAND` exits A, B or C" under "## Exit codes" with the same codes,
each a row of the table, and each such sentence a command whose help lists them.

Usage: check_exit_codes.py SOURCE_DIR [ORCHESTRATOR]
"""
import os
import re
import subprocess
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


HELP_CODES = re.compile(r"\(exit (\d[^)]*)\)")
CODE_ITEM = re.compile(r"(?:^|, )(\d)\b")
README_CODES = re.compile(r"`(\w[\w ]*)` exits (\d(?:(?:, | or )\d)*)\b")


def commands(binary, path=()):
    """{"validate": description, "runs list": description, ...}: every command, walked through
    each --help's Subcommands section."""
    found = {}
    text = subprocess.run([binary, *path, "--help"], capture_output=True, text=True,
                          check=True).stdout
    if path:
        found[" ".join(path)] = text.splitlines()[0]
    lines = text.splitlines()
    if "Subcommands:" in lines:
        for line in lines[lines.index("Subcommands:") + 1:]:
            m = re.match(r"^  (\S+)\s", line)
            if not m:
                break
            found.update(commands(binary, path + (m.group(1),)))
    return found


def section(path, heading):
    """The text of README's section `heading`, to the next heading of its level."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end >= 0 else len(text)]


def help_mismatches(source, binary, readme_rows):
    said = {}
    for name, codes in README_CODES.findall(section(os.path.join(source, "README.md"),
                                                    "## Exit codes")):
        said[name] = set(re.findall(r"\d", codes))
    problems = []
    listed = {}
    for name, description in commands(binary).items():
        m = HELP_CODES.search(description)
        if m:
            listed[name] = set(CODE_ITEM.findall(m.group(1)))
    for name, codes in sorted(listed.items()):
        if name not in said:
            problems.append(f"`{name}` --help lists exit codes {sorted(codes)}; README's Exit "
                            f"codes section does not say \"`{name}` exits ...\"")
        elif said[name] != codes:
            problems.append(f"`{name}` --help lists exit codes {sorted(codes)}, README "
                            f"{sorted(said[name])}")
        for code in sorted(codes - set(readme_rows)):
            problems.append(f"`{name}` --help lists exit code {code}, which README's table has "
                            f"no row for")
    for name in sorted(set(said) - set(listed)):
        problems.append(f"README says which codes `{name}` exits with; its --help lists none")
    return problems


def main(source, binary=None):
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
    problems = help_mismatches(source, binary, readme) if binary else []
    for p in problems:
        print(f"README.md, Exit codes: {p}")
    return 1 if missing or problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
