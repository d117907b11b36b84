#!/usr/bin/env python3
"""Every Catch2 test name can run under CTest.

catch_discover_tests hands each test case's name to CTest as a list
element, so a ';' in a name splits it into pieces that match no test and
"pass" without running anything; a name starting with "--" is read as a
flag. This check reads the test sources (the name is the leading string
literals of TEST_CASE / CONTRACT_TEST) and fails naming each offender.

usage: check_test_names.py ROOT
"""

import glob
import os
import re
import sys


def names(text):
    for m in re.finditer(r"\b(TEST_CASE|CONTRACT_TEST)\s*\(", text):
        j = m.end()
        parts = []
        while True:
            while j < len(text) and text[j] in " \t\n":
                j += 1
            if j >= len(text) or text[j] != '"':
                break
            k = j + 1
            while text[k] != '"':
                k += 2 if text[k] == "\\" else 1
            parts.append(text[j + 1:k])
            j = k + 1
        if parts:
            yield text.count("\n", 0, m.start()) + 1, "".join(parts)


def main():
    root = sys.argv[1]
    bad = []
    for path in sorted(glob.glob(os.path.join(root, "test", "**", "*.cc"),
                                 recursive=True) +
                       glob.glob(os.path.join(root, "test", "**", "*.inc"),
                                 recursive=True)):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line, name in names(text):
            if ";" in name or name.startswith("--"):
                bad.append(f"{os.path.relpath(path, root)}:{line}: {name!r}")
    for b in bad:
        print("test name CTest cannot run (';' splits it, '--' starts a "
              "flag): " + b)
    if bad:
        return 1
    print("every test name can run under CTest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
