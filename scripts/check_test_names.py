#!/usr/bin/env python3
"""Every Catch2 test name can run under CTest.

catch_discover_tests hands each test case's name to CTest as a list
element, so a ';' in a name splits it into pieces that match no test and
"pass" without running anything; a name starting with "--" is read as a
flag. And Catch2 2.13's console reporter wraps a name with its
continuation lines indented past the name's first ": "; when that indent
reaches the console width (79) it aborts on an assertion, so the report
of a failing test is lost (measured: first ": " ending at column 76
prints, at 79 aborts). This check reads the test sources (the name is
the leading string literals of TEST_CASE / CONTRACT_TEST) and fails
naming each offender.

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


# The widest wrap indent (index just past the first ": ") measured to print.
MAX_COLON_INDENT = 76


def colon_indent(name):
    i = name.find(": ")
    return 0 if i < 0 else i + 2


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
            where = f"{os.path.relpath(path, root)}:{line}: {name!r}"
            if ";" in name or name.startswith("--"):
                bad.append("test name CTest cannot run (';' splits it, '--' "
                           "starts a flag): " + where)
            elif colon_indent(name) > MAX_COLON_INDENT:
                bad.append("test name whose failure Catch2 cannot print (its "
                           f"first ': ' ends at column {colon_indent(name)}, "
                           f"over {MAX_COLON_INDENT}; move it earlier or "
                           "drop it): " + where)
    for b in bad:
        print(b)
    if bad:
        return 1
    print("every test name can run under CTest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
