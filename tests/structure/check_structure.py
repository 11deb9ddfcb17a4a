#!/usr/bin/python3
"""The repository's structure rules (README.md "Architecture"), checked on the source tree. Prints every offence as
FILE:LINE: rule: detail and exits 1 if there is any.

  check_structure.py [SOURCE_DIR] [--rule NAME ...]

Rules:
  engine-internal   ui/, app/, remote/ and plugins/ include no engine-private header (engine/<folder>/..., any
                    folder of engine/ but include/): they see the engine through engine/include/npuwb only.
  plugin-sdk        plugins/ include only the plugin SDK headers (NPUWB_PLUGIN_SDK_HEADERS, read from
                    engine/CMakeLists.txt) and their own files.
  module-deps       each top-level module includes only the modules below it (MODULE_DEPS): the engine nothing
                    outside engine/, plugins the engine, remote the engine, ui the engine and remote (not app/),
                    app anything; so no loop between them.
  ui-folders        inside ui/: models/ does not include views/, and no loop between ui's folders (jobs<->views,
                    jobs<->dialogs, ...). Files at ui/'s top (the main window) may include every folder.
  file-length       no product file (engine ui remote plugins app, .cpp/.h) over 800 lines.
  inc-files         no .inc file anywhere.
  outside-docs      no text cites a document that is not in the repository (project design notes, the numbered
                    source documents, the shared folder): cite the vendor document and section instead.
"""
import argparse
import fnmatch
import os
import re
import sys
from collections import defaultdict

PRODUCT = ("engine", "ui", "remote", "plugins", "app")
MODULE_DEPS = {  # what each top-level module may include besides itself
    "engine": set(),
    "plugins": {"engine"},  # the plugin SDK only (rule plugin-sdk)
    "remote": {"engine"},
    "ui": {"engine", "remote"},
    "app": {"engine", "remote", "ui", "plugins"},
}
CODE_EXT = (".cpp", ".h", ".hpp", ".c", ".cc")
MAX_LINES = 800
SKIP_DIRS = {".git", "node_modules", "build", "out"}
# Documents outside the repository, as comments and messages cite them (written so this file does not cite them).
OUTSIDE_DOCS = re.compile("|".join([
    r"DESIGN" + r"\.md",
    r"\bseeds?\s*0\d\d\b",            # the numbered source documents
    r"\bseed\s+\d+\.\d+",             # "seed 5.2.4.1": a section of one of them
    r"\bplay" + r"book\b",
    r"\.\./shared\b", r"/work/shared\b", r"\bshared folder\b",
    r"rockchip-facts" + r"\.md",
]), re.IGNORECASE)
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def walk(root):
    """Relative paths of the source tree's files (build trees, fetched models and node_modules left out)."""
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS
                             and not (rel_dir == "." and d.startswith("build"))  # build trees: build/<preset>
                             and os.path.join(rel_dir, d) != os.path.join("tests", "data", "models"))
        for f in sorted(filenames):
            yield os.path.normpath(os.path.join(rel_dir, f))


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except (UnicodeDecodeError, OSError):
        return None


def sdk_headers(root):
    """NPUWB_PLUGIN_SDK_HEADERS from engine/CMakeLists.txt (paths relative to engine/include, globs allowed)."""
    text = open(os.path.join(root, "engine", "CMakeLists.txt"), encoding="utf-8").read()
    m = re.search(r"set\(\s*NPUWB_PLUGIN_SDK_HEADERS\s+([^)]*)\)", text)
    if not m:
        sys.exit("check_structure: no set(NPUWB_PLUGIN_SDK_HEADERS ...) in engine/CMakeLists.txt")
    return m.group(1).split()


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = list(walk(root))
        self.by_suffix = defaultdict(list)  # "npuwb/Error.h" -> files whose path ends with it
        for f in self.files:
            if f.endswith(CODE_EXT):
                parts = f.split(os.sep)
                for i in range(len(parts)):
                    self.by_suffix["/".join(parts[i:])].append(f)
        self.engine_private = sorted(d for d in os.listdir(os.path.join(root, "engine"))
                                     if os.path.isdir(os.path.join(root, "engine", d)) and d != "include")

    def resolve(self, includer, target):
        """The repository file an include names: next to the includer first, then in the includer's own module
        (walking up its folders), then anywhere (a unique match). None for system and generated headers."""
        here = os.path.dirname(includer)
        while True:
            candidate = os.path.normpath(os.path.join(here, target))
            if candidate in self.by_suffix.get(target, []) or os.path.isfile(os.path.join(self.root, candidate)):
                return candidate
            if not here:
                break
            here = os.path.dirname(here)
        matches = self.by_suffix.get(target, [])
        same_module = [m for m in matches if module(m) == module(includer)]
        if same_module:
            return same_module[0]
        return matches[0] if len(set(module(m) for m in matches)) == 1 else None


def module(path):
    return path.split(os.sep)[0]


def plugin_of(path):
    parts = path.split(os.sep)
    return parts[1] if parts[0] == "plugins" and len(parts) > 2 else None


def ui_folder(path):
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 else None


def find_cycles(edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check(root, rules):
    tree = Tree(root)
    offences = []

    def report(rule, where, detail):
        if rule in rules:
            offences.append((rule, where, detail))

    sdk = sdk_headers(root)
    ui_edges = defaultdict(lambda: defaultdict(list))

    for f in tree.files:
        top = module(f)
        if f.endswith(".inc"):
            report("inc-files", f"{f}:1", "a .inc file (make it a header or a source file)")
        lines = None
        if top in PRODUCT and f.endswith(CODE_EXT):
            lines = read_lines(os.path.join(root, f)) or []
            if len(lines) > MAX_LINES:
                report("file-length", f"{f}:{len(lines)}", f"{len(lines)} lines (at most {MAX_LINES}): split it")
        if not f.startswith(os.path.join("tests", "structure") + os.sep):
            text = lines if lines is not None else read_lines(os.path.join(root, f))
            for n, line in enumerate(text or [], 1):
                m = OUTSIDE_DOCS.search(line)
                if m:
                    report("outside-docs", f"{f}:{n}",
                           f"cites '{m.group(0)}', which is not in the repository: {line.strip()[:140]}")
        if lines is None:
            continue
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            where, target = f"{f}:{n}", m.group(2)
            if target.endswith(".inc"):
                report("inc-files", where, f"includes {target}")
            first = target.split("/")[0]
            resolved = tree.resolve(f, target)
            dest = module(resolved) if resolved else None
            if top != "engine" and m.group(1) == '"' and "/" in target and first in tree.engine_private and \
                    (resolved is None or dest == "engine"):
                report("engine-internal", where, f'includes engine-private "{target}" (use engine/include/npuwb/)')
            elif top != "engine" and resolved and dest == "engine" and not resolved.startswith("engine/include/"):
                report("engine-internal", where, f"includes engine-private {resolved} (use engine/include/npuwb/)")
            if top == "plugins" and target.startswith("npuwb/"):
                rel = target
                if not any(fnmatch.fnmatch(rel, pattern) for pattern in sdk):
                    report("plugin-sdk", where, f"includes {target}, which is not in NPUWB_PLUGIN_SDK_HEADERS")
            if not resolved:
                continue
            if dest != top and top in MODULE_DEPS and dest not in MODULE_DEPS[top]:
                allowed = ", ".join(sorted(MODULE_DEPS[top])) or "nothing outside itself"
                report("module-deps", where, f"{top} includes {resolved} ({dest}/); {top} may include {allowed}")
            if top == "plugins" and dest == "plugins" and plugin_of(resolved) != plugin_of(f):
                report("module-deps", where, f"a plugin includes another plugin's {resolved}")
            if top == "ui" and dest == "ui":
                a, b = ui_folder(f), ui_folder(resolved)
                if a and b and a != b:
                    ui_edges[a][b].append(where)
                if a == "models" and b == "views":
                    report("ui-folders", where, f"models/ includes {resolved} (views/ build on models/, not back)")

    for comp in find_cycles({k: list(v) for k, v in ui_edges.items()}):
        for a in comp:
            for b in comp:
                for where in ui_edges[a].get(b, []):
                    report("ui-folders", where, f"ui folder loop {' <-> '.join(comp)}: {a}/ includes {b}/")
    return offences


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source_dir", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--rule", action="append", help="check only these rules")
    args = ap.parse_args()
    all_rules = ["engine-internal", "plugin-sdk", "module-deps", "ui-folders", "file-length", "inc-files",
                 "outside-docs"]
    rules = args.rule or all_rules
    unknown = set(rules) - set(all_rules)
    if unknown:
        sys.exit(f"check_structure: unknown rule(s) {', '.join(sorted(unknown))} (rules: {', '.join(all_rules)})")
    root = os.path.abspath(args.source_dir)
    offences = check(root, rules)
    seen = set()
    for rule, where, detail in offences:
        if (rule, where, detail) not in seen:
            seen.add((rule, where, detail))
            print(f"{where}: {rule}: {detail}")
    counts = defaultdict(int)
    for rule, _, _ in seen:
        counts[rule] += 1
    summary = ", ".join(f"{r} {counts[r]}" for r in rules)
    print(f"structure: {len(seen)} offence(s) ({summary})" if seen else f"structure: clean ({', '.join(rules)})")
    return 1 if seen else 0


if __name__ == "__main__":
    sys.exit(main())
