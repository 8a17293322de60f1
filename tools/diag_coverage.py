#!/usr/bin/env python3
"""Which of tilec's diagnostics have a test in tests/errors/ (or tests/golden for warnings).

    python3 tools/diag_coverage.py            list the untested messages, then a count
    python3 tools/diag_coverage.py --all      every message with the test that shows it

A message is a format string passed to diag_error / diag_warning / lower_error /
usage_error, or printed after "tilec: error:" in src/main.c; it is covered when the stderr
of some tests/errors/*.expected matches it (each %-conversion matches any text).
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CALL = re.compile(r'\b(diag_error|diag_warning|lower_error|usage_error|unsupported|error_at_token|'
                  r'expect_colon|fprintf\(stderr,)\s*\(?\s*(?:[^"();]*?,\s*)?((?:"(?:[^"\\]|\\.)*"\s*)+)', re.S)


def messages():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "**", "*.c"), recursive=True)) + \
            [os.path.join(ROOT, "src", "lexer.re")]:
        text = open(path).read()
        for m in CALL.finditer(text):
            fmt = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2)))
            line = text.count("\n", 0, m.start()) + 1
            out.append((os.path.relpath(path, ROOT), line, m.group(1), fmt))
    return out


def pattern(fmt):
    parts = re.split(r"%[-+ #0]*\*?\d*(?:\.\*|\.\d+)?(?:ll|l|z|h)?[a-zA-Z%]", fmt)
    body = ".*".join(re.escape(p.encode().decode("unicode_escape")) for p in parts)
    return re.compile(body)


def main():
    expected = {}
    for f in sorted(glob.glob(os.path.join(ROOT, "tests", "errors", "*.expected"))):
        expected[os.path.basename(f)] = open(f).read()
    untested = 0
    for path, line, fn, fmt in messages():
        pat = pattern(fmt)
        hits = [name for name, text in expected.items() if pat.search(text)]
        if not hits:
            untested += 1
        if "--all" in sys.argv or not hits:
            print(f"{path}:{line}: {fn}: \"{fmt[:100]}\"  {'-> ' + hits[0] if hits else 'UNTESTED'}")
    total = len(messages())
    print(f"{total - untested} of {total} messages tested")


if __name__ == "__main__":
    main()
