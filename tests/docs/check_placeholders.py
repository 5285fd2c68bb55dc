"""Fails on text left for later in the documentation: a line that is only an UPPER_SNAKE_CASE
word (QUICKSTART_OUTPUT, where real output belongs), and TODO, TBD, FIXME, XXX, PLACEHOLDER,
"lorem ipsum" or "<insert ...>" anywhere. Checks README.md, docs/*.md and every other README.md
of the repository (build folders and node_modules aside).

Usage: check_placeholders.py SOURCE_DIR
"""
import os
import re
import sys

ALONE = re.compile(r"^\s*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\s*$")
WORDS = re.compile(r"\b(?:TODO|TBD|FIXME|XXX|PLACEHOLDER)\b|lorem ipsum|<insert\b", re.I)
CASED = {"TODO", "TBD", "FIXME", "XXX", "PLACEHOLDER"}  # these count only in capitals


def documents(source):
    found = [os.path.join(source, "README.md")]
    docs = os.path.join(source, "docs")
    found += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    for root, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build")) and d != "node_modules"]
        if root != source and "README.md" in files:
            found.append(os.path.join(root, "README.md"))
    return found


def problems(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if ALONE.match(line):
                out.append((number, line.strip(), "a placeholder where text belongs"))
                continue
            for match in WORDS.finditer(line):
                word = match.group(0)
                if word.upper() in CASED and word != word.upper():
                    continue  # "todo" or "Xxx" in prose is a word, not a marker
                out.append((number, line.strip(), f"'{word}' left for later"))
    return out


def main():
    source = sys.argv[1]
    failures = []
    for path in documents(source):
        for number, line, why in problems(path):
            failures.append(f"{os.path.relpath(path, source)}:{number}: {why}: {line}")
    if failures:
        print("\n".join(failures))
        return 1
    print(f"docs.no_placeholders: {len(documents(source))} files, no placeholder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
