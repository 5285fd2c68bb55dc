"""Fails when a source or documentation file names a Markdown document that is not in the
repository, or cites a part of one that it does not have.

Checked files: *.cc, *.h, *.py, *.sh, *.cmake, *.toml, *.proto, *.sql, *.md and CMakeLists.txt
(build folders, hidden folders and node_modules aside). In them:

- A name ending in .md that has a folder (docs/GATES.md, ../../README.md) or starts with a
  capital letter (README.md, the upper-case names of this project's documents) must resolve,
  relative to the repository root or to the citing file's folder, to a file inside the
  repository. A lower-case bare name (summary.md) is a file a command writes, not a citation.
  URLs are ignored; an absolute path is always a failure (it names this machine, not the repo).
- A section cited after a document, as `docs/GATES.md, "Verdicts"` or `docs/GATES.md
  "Verdicts"` (the quotes may wrap onto the next comment line), must be a heading of it;
  `docs/GATES.md#verdicts` must be the anchor of one of its headings.
- A rule cited as `docs/CONTRIBUTING.md, rule 4` (or `rules 3 and 5`) must be a numbered item
  of that document.

And the maps of the tree, README's "Navigating the code" and docs/ARCHITECTURE.md's "Where
each concern lives", name every top-level folder and every folder of a component (common/,
router/, worker/, orchestrator/, tests/), and every full folder path they name exists.

Usage: check_references.py SOURCE_DIR
"""
import os
import re
import sys

EXTENSIONS = (".cc", ".h", ".py", ".sh", ".cmake", ".toml", ".proto", ".sql", ".md")
URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.I)
NAME = re.compile(r"(?<![\w./-])((?:\.{1,2}/|/)?(?:[\w.-]+/)*[\w-]+\.md)\b")
# After a document's name: an anchor, a quoted section or a rule number.
ANCHOR = re.compile(r"#([\w-]+)")
SECTION = re.compile(r"(?:,\s*|\s+)\"([^\"]+)\"")
RULES = re.compile(r",?\s*rules?\s+(\d+)(?:\s*(?:,|and)\s*(\d+))*")
# Comment markers at the start of a continuation line, removed when a citation wraps.
COMMENT = re.compile(r"^\s*(?://+|#+|--|\*)?\s?")


def source_files(source):
    for root, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build")) and d != "node_modules"
                         and not os.path.exists(os.path.join(root, d, "CMakeCache.txt")))
        for name in sorted(files):
            if name.endswith(EXTENSIONS) or name == "CMakeLists.txt":
                yield os.path.join(root, name)


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def plain(text):
    return " ".join(text.replace("`", "").replace("*", "").split()).lower()


class Document:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.headings = [re.sub(r"^#+\s*", "", l) for l in lines if re.match(r"#{1,6}\s", l)]
        self.rules = {m.group(1) for l in lines for m in [re.match(r"\s*(\d+)\.\s", l)] if m}

    def has_heading(self, section):
        return plain(section) in {plain(h) for h in self.headings}

    def has_anchor(self, anchor):
        return anchor.lower() in {slug(h) for h in self.headings}


def resolve(source, citing, name):
    if name.startswith("/"):
        return None
    for base in (source, os.path.dirname(citing)):
        path = os.path.realpath(os.path.join(base, name))
        inside = path.startswith(os.path.realpath(source) + os.sep)
        if inside and os.path.isfile(path):
            return path
    return None


def checked(name):
    base = os.path.basename(name)
    return "/" in name or base[:1].isupper()


def problems(source, path, documents):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    out = []
    for number, line in enumerate(lines, 1):
        text = URL.sub(lambda m: " " * len(m.group(0)), line)
        for match in NAME.finditer(text):
            name = match.group(1)
            if not checked(name):
                continue
            target = resolve(source, path, name)
            if target is None:
                where = "outside the repository" if name.startswith("/") else "no such file"
                out.append((number, f"names {name}: {where}"))
                continue
            if target not in documents:
                documents[target] = Document(target)
            doc = documents[target]
            rest = text[match.end():]
            # A quoted section may wrap onto the next comment line.
            if (rest.count('"') == 1 or rest.strip() in ("", ",")) and number < len(lines):
                rest += " " + COMMENT.sub("", lines[number], count=1)
            anchor = ANCHOR.match(rest)
            section = SECTION.match(rest)
            rules = RULES.match(rest)
            if anchor and not doc.has_anchor(anchor.group(1)):
                out.append((number, f"cites {name}#{anchor.group(1)}: no heading has that anchor"))
            elif section and not doc.has_heading(section.group(1)):
                out.append((number, f"cites {name}, \"{section.group(1)}\": no such heading"))
            elif rules:
                for rule in re.findall(r"\d+", rules.group(0)):
                    if rule not in doc.rules:
                        out.append((number, f"cites {name}, rule {rule}: no such numbered rule"))
    return out


MAPS = [("README.md", "Navigating the code"), ("docs/ARCHITECTURE.md", "Where each concern lives")]
COMPONENTS = ("common", "router", "worker", "orchestrator", "tests")


def folders(path):
    return sorted(d for d in os.listdir(path) if os.path.isdir(os.path.join(path, d))
                  and not d.startswith((".", "build")) and d != "node_modules"
                  and not os.path.exists(os.path.join(path, d, "CMakeCache.txt")))


def map_problems(source):
    out = []
    for doc, heading in MAPS:
        if not os.path.isfile(os.path.join(source, doc)):
            out.append(f"{doc}: missing")
            continue
        with open(os.path.join(source, doc), encoding="utf-8") as f:
            text = f.read()
        start = text.find("## " + heading)
        if start < 0:
            out.append(f"{doc}: no section '{heading}'")
            continue
        end = text.find("\n## ", start + 3)
        section = text[start:end if end > 0 else len(text)]
        named = set(re.findall(r"`([\w./-]+/)`", section))
        expected = [f"{d}/" for d in folders(source)]
        expected += [f"{c}/{d}/" for c in COMPONENTS for d in folders(os.path.join(source, c))]
        for folder in expected:
            base = folder.rstrip("/").rsplit("/", 1)[-1] + "/"
            if base not in named and not any(n.startswith(folder) for n in named):
                out.append(f"{doc}, \"{heading}\": does not name {folder}")
        for folder in sorted(named):
            if folder.count("/") > 1 and not os.path.isdir(os.path.join(source, folder)):
                out.append(f"{doc}, \"{heading}\": names {folder}, which does not exist")
    return out


def main():
    source = os.path.realpath(sys.argv[1])
    documents = {}
    failures = []
    files = list(source_files(source))
    for path in files:
        for number, why in problems(source, path, documents):
            failures.append(f"{os.path.relpath(path, source)}:{number}: {why}")
    failures += map_problems(source)
    if failures:
        print("\n".join(failures))
        return 1
    print(f"docs.references: {len(files)} files, every cited document and section exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
