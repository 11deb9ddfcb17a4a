#!/usr/bin/python3
"""Checks the include rules between ui/ folders: every `#include "FOLDER/..."` of a ui/ file must name its own
folder or one the table in ui/README.md allows for it. Views (views/NAME/) may not include each other.
Usage: ui_layering_test.py UI_DIR"""
import pathlib
import re
import sys


def rules(readme):
    """{folder: allowed folders} from the README's table rows: | `folder/` | text | `a/` `b/` |"""
    table = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"`[a-zA-Z/]+`", cells[0]):
            continue
        table[cells[0].strip("`")] = set(re.findall(r"`([a-zA-Z/]+)`", cells[2]))
    return table


def folder_of(relative):
    parts = relative.split("/")
    if parts[0] == "views" and len(parts) > 2:
        return "views/" + parts[1] + "/", "views/NAME/"
    key = parts[0] + "/"
    return key, key


def main():
    ui = pathlib.Path(sys.argv[1])
    table = rules(ui / "README.md")
    if len(table) < 5:
        sys.exit(f"ui/README.md: found {len(table)} folder rules, expected the folder table")
    top = {key.split("/")[0] for key in table}
    errors = []
    for path in sorted(ui.rglob("*")):
        if path.suffix not in (".h", ".cpp"):
            continue
        relative = path.relative_to(ui).as_posix()
        own, key = folder_of(relative)
        if key not in table:
            errors.append(f"ui/{relative}: not in a folder of ui/README.md's table")
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not match or match.group(1).split("/")[0] not in top:
                continue
            target, target_key = folder_of(match.group(1))
            if target == own or target_key in table[key]:
                continue
            errors.append(f"ui/{relative}:{number}: {own} may not include {match.group(1)} "
                          f"(allowed: {', '.join(sorted(table[key])) or 'nothing in ui/'})")
    if errors:
        sys.exit("\n".join(errors))
    print(f"ui/ includes follow the {len(table)} folder rules of ui/README.md")


if __name__ == "__main__":
    main()
