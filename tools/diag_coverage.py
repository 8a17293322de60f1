#!/usr/bin/env python3
"""Which of tilec's diagnostics have a test in tests/errors/.

    python3 tools/diag_coverage.py            list the untested messages, then a count
    python3 tools/diag_coverage.py --all      every message with the test that shows it
    python3 tools/diag_coverage.py --check    the same as the first, and exit status 1 if any
                                              message is untested (make errors runs this)

A message is a format string passed to diag_error / diag_warning / lower_error /
usage_error (for `usage_error("%s", "text")`, the text) / flag_error (the flags, in
src/options.c), or printed by fprintf(stderr, "tilec: error: ...") in src/main.c; it is covered when the stderr of some
tests/errors/*.expected matches it (each %-conversion matches any text).  Not diagnostics:
BUG()'s "tilec: internal error" (a bug, never an answer to input) and --report's lines
(checked by make lib-test).  EXEMPT names the few environment failures that no command line
can provoke, with the reason.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXEMPT = {
    "tilec: error: out of memory\\n": "the CLI's tilec_context_create failing: calloc of one small struct",
    "cannot read the module file %s (imported as '%s')": "a module file that exists but cannot be read: "
                                                          "the tests run where permissions do not stop reads",
    "--variant \\\"%s\\\": this variant copies its tensor descriptors by TMA in other boxes than the kernel as "
    "written, and one launcher encodes one set of tensor maps; drop the variant":
        "a guard: a variant adds facts about plain pointers and integers, and a TMA box comes from its "
        "descriptor's block shape and element type, which no fact changes",
}
CALL = re.compile(r'\b(diag_error|diag_warning|lower_error|usage_error|flag_error|unsupported|error_at_token|'
                  r'expect_colon|fprintf\(stderr,)\s*\(?\s*(?:[^"();]*?,\s*)?((?:"(?:[^"\\]|\\.)*"\s*)+)', re.S)


def messages():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "**", "*.c"), recursive=True)) + \
            [os.path.join(ROOT, "src", "lexer.re")]:
        text = open(path).read()
        for m in CALL.finditer(text):
            fmt = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2)))
            if fmt == "%s":     # usage_error("%s", "the message")
                lit = re.match(r'\s*,\s*"((?:[^"\\]|\\.)*)"', text[m.end():])
                fmt = lit.group(1) if lit else fmt
            if m.group(1).startswith("fprintf") and not fmt.startswith("tilec: error:"):
                continue        # internal errors and --report output are not diagnostics
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
    untested = exempt = 0
    msgs = messages()
    for path, line, fn, fmt in msgs:
        pat = pattern(fmt)
        hits = [name for name, text in expected.items() if pat.search(text)]
        why = EXEMPT.get(fmt)
        if why:
            exempt += 1
            hits = ["exempt: " + why]
        if not hits:
            untested += 1
        if "--all" in sys.argv or not hits:
            print(f"{path}:{line}: {fn}: \"{fmt[:100]}\"  {'-> ' + hits[0] if hits else 'UNTESTED'}")
    total = len(msgs)
    print(f"{total - untested - exempt} of {total} messages tested, {exempt} exempt, {untested} untested")
    return 1 if untested and "--check" in sys.argv else 0


if __name__ == "__main__":
    sys.exit(main())
