#!/usr/bin/env python3
"""The layering test: every module includes and links only what the arrows
of README.md's layout table allow.

The table is the single source of the rules. Each row names a top-level
folder (`dir/`) and, in its last column, the modules it may use: the words
of that cell that name a row of the table, outside parentheses. A
backquoted pattern after "not" (not `proto/bookie.pb.h`) is a header the
module must not include even though it may use that header's module.
Rows whose last cell is empty (test/, deploy/) are not checked, but their
folders are still modules no one may include.

Checked:
  1. every #include "x/..." in a .h, .cc or .inc file of a checked module:
     x is the module itself or one it may use, and the header matches none
     of its "not" patterns;
  2. with --links FILE (written at configure time by cmake/BkTargets.cmake):
     every library of a checked module links only libraries of the module
     itself or of modules it may use;
  3. every top-level folder holding C++ sources is a row of the table, so a
     new module cannot slip past the check.

Usage: check_layering.py [--root DIR] [--links FILE]
Exit 0 when clean; 1 with one line per violation otherwise. Reads files
only: no build, no network; well under a second.
"""

import argparse
import fnmatch
import os
import re
import sys

ROW = re.compile(r"^\|\s*`([A-Za-z0-9_]+)/`\s*\|(.*)\|(.*)\|\s*$")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_SUFFIXES = (".h", ".cc", ".inc")


def read_table(readme):
    """{module: (allowed modules, forbidden patterns)}; checked ones only
    have a non-empty cell. Returns (modules, rules)."""
    cells = {}
    with open(readme, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line.rstrip("\n"))
            if m:
                cells[m.group(1)] = m.group(3).strip()
    if not cells:
        sys.exit(f"{readme}: no layout table (rows like | `dir/` | what | may use |)")
    modules = set(cells)
    rules = {}
    for module, cell in cells.items():
        if not cell:
            continue
        forbidden = re.findall(r"not `([^`]+)`", cell)
        words = re.sub(r"\([^)]*\)", " ", cell)
        allowed = {w for w in re.findall(r"[A-Za-z0-9_]+", words)
                   if w in modules and w != module}
        rules[module] = (allowed, forbidden)
    return modules, rules


def sources(root, module):
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, module)):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(dirpath, name)


def check_includes(root, modules, rules):
    errors = []
    for module, (allowed, forbidden) in sorted(rules.items()):
        for path in sources(root, module):
            rel = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    header = m.group(1)
                    target = header.split("/", 1)[0]
                    if "/" not in header or target not in modules:
                        continue  # third-party ("absl/...") or local
                    if target != module and target not in allowed:
                        errors.append(
                            f"{rel}:{n}: {module}/ includes {header}: "
                            f"{module} -> {target} is not an arrow of the "
                            f"layout table (may use: "
                            f"{', '.join(sorted(allowed)) or 'nothing of ours'})")
                    for pattern in forbidden:
                        if fnmatch.fnmatch(header, pattern):
                            errors.append(
                                f"{rel}:{n}: {module}/ includes {header}, "
                                f"which the layout table excludes "
                                f"(not `{pattern}`)")
    return errors


def check_links(links_file, modules, rules):
    """links_file: lines '<target> <folder> <dep>...' for every library."""
    folder_of = {}
    deps_of = {}
    with open(links_file, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if len(words) >= 2:
                folder_of[words[0]] = words[1]
                deps_of[words[0]] = words[2:]
    errors = []
    for target, deps in sorted(deps_of.items()):
        module = folder_of[target].split("/", 1)[0]
        if module not in rules:
            continue
        allowed = rules[module][0]
        for dep in deps:
            if dep not in folder_of:
                continue  # third-party
            dep_module = folder_of[dep].split("/", 1)[0]
            if dep_module != module and dep_module not in allowed:
                errors.append(
                    f"{links_file}: {target} ({folder_of[target]}/) links "
                    f"{dep} ({folder_of[dep]}/): {module} -> {dep_module} is "
                    f"not an arrow of the layout table")
    return errors


def check_coverage(root, modules):
    errors = []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if (not os.path.isdir(path) or name.startswith(".")
                or name.startswith("build") or name in modules):
            continue
        if any(True for _ in sources(root, name)):
            errors.append(f"{name}/ holds C++ sources but is not a row of "
                          f"README.md's layout table")
    return errors


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=os.path.dirname(here))
    p.add_argument("--links", help="libraries and their links (build tree)")
    args = p.parse_args()
    modules, rules = read_table(os.path.join(args.root, "README.md"))
    errors = check_includes(args.root, modules, rules)
    if args.links:
        errors += check_links(args.links, modules, rules)
    errors += check_coverage(args.root, modules)
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} layering violation(s); the arrows are the "
              f"'may use' column of README.md's layout table")
        return 1
    checked = ", ".join(sorted(rules))
    print(f"layering clean: {checked}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
