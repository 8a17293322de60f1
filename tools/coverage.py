#!/usr/bin/env python3
"""How many real Triton kernels tilec translates, and what stops the others.

    python3 tools/coverage.py --tsv bench/corpus/kernels.tsv --src DIR
                              [--tilec bin/tilec] [--nvcc nvcc] [--arch sm_90]
                              [--jobs N] [--timeout S] [--only TEXT] [--out FILE.md]

Each row of the TSV (repo, path, commit, kernel, args) names one kernel of a public project
and the tilec command line its project's launch implies; {SRC} in args stands for DIR, which
holds the sources as OWNER+NAME/PATH (tools/fetch_corpus.sh fetches them).  For each row,
tilec translates the file as it is, and nvcc compiles the CUDA for --arch (-c, no GPU
needed).  The result is one of:

    OK           tilec and nvcc both succeed
    UNSUPPORTED  tilec refuses: its first error says a Triton feature is not supported
    ERROR        tilec rejects the kernel for another reason (the first error line is shown)
    CRASH        tilec dies by a signal, a sanitizer report, an internal error or the timeout
    NVCC-FAIL    tilec succeeds but nvcc rejects its CUDA
    NO-SOURCE    the file is not under DIR (fetch it first)

Rows run in parallel (--jobs, default the number of CPUs), each step under --timeout
seconds; the report lists rows in the TSV's order, so it does not depend on timing.  It
prints a Markdown table, the totals and the failures grouped by their first error message
(names and numbers replaced by placeholders) to standard output, or to --out.  The exit
status is 0 whatever the results; 2 for bad arguments or an unreadable TSV.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

RESULTS = ["OK", "UNSUPPORTED", "ERROR", "CRASH", "NVCC-FAIL", "NO-SOURCE"]

# tilec words a refused Triton feature as "... is not supported (yet)", "... are not
# supported in kernels", "unsupported function math.X" or "unknown or unsupported math
# function libdevice.X".  "unsupported operand types/operator" is a type error in the
# input, as in Python, so it counts as ERROR.
UNSUPPORTED = re.compile(r"not supported|unsupported (math )?function|unknown or unsupported")
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
                       r"tilec: internal error")


class Row:
    def __init__(self, index, repo, path, commit, kernel, args):
        self.index, self.repo, self.path, self.commit = index, repo, path, commit
        self.kernel, self.args = kernel, args
        self.result, self.detail = None, ""

    @property
    def project(self):
        return self.repo.split("/")[-1]

    def source(self, src):
        return os.path.join(src, self.repo.replace("/", "+"), self.path)


def fail(msg):
    print("coverage: " + msg, file=sys.stderr)
    sys.exit(2)


def read_tsv(path):
    rows = []
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        fail("cannot read %s: %s" % (path, e.strerror))
    for line in lines:
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if cols[0] == "repo":       # the header row
            continue
        if len(cols) != 5:
            fail("%s: expected 5 tab-separated columns, got %d: %s" % (path, len(cols), line[:80]))
        rows.append(Row(len(rows) + 1, *cols))
    return rows


def first_error(text, src):
    """The first line of text that says error, with the source folder taken off its paths."""
    for line in text.splitlines():
        if re.search("error", line, re.I):
            return line.replace(src.rstrip("/") + "/", "").strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0].strip() if lines else "(no message)"


def run(cmd, timeout):
    """(returncode, stdout and stderr together); returncode None on timeout."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, ""


def check(row, opts, work):
    if not os.path.isfile(row.source(opts.src)):
        return "NO-SOURCE", row.source(opts.src).replace(opts.src.rstrip("/") + "/", "")
    args = shlex.split(row.args.replace("{SRC}", opts.src.rstrip("/")))
    if "--arch" not in args:
        args += ["--arch", opts.arch]
    cu = os.path.join(work, "%02d-%s.cu" % (row.index, row.kernel))
    rc, out = run([opts.tilec] + args + ["-o", cu], opts.timeout)
    if rc is None:
        return "CRASH", "tilec timed out after %d s" % opts.timeout
    if rc < 0:
        said = "; " + first_error(out, opts.src) if out.strip() else ""
        return "CRASH", "tilec killed by signal %d%s" % (-rc, said)
    if SANITIZER.search(out):
        return "CRASH", first_error(out, opts.src)
    if rc != 0:
        msg = first_error(out, opts.src)
        return ("UNSUPPORTED" if UNSUPPORTED.search(msg) else "ERROR"), msg
    obj = cu[:-3] + ".o"
    rc, out = run([opts.nvcc, "-std=c++17", "-O3", "-arch=" + opts.arch, "-c", "-o", obj, cu], opts.timeout)
    if rc is None:
        return "NVCC-FAIL", "nvcc timed out after %d s" % opts.timeout
    if rc != 0:
        return "NVCC-FAIL", first_error(out, work + "/")
    return "OK", ""


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def signature(msg):
    """The message with its location, quoted names and numbers made generic."""
    msg = re.sub(r"^.*?: error: ", "", msg)
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r"e\.g\. \w+ = ", "e.g. … = ", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    return msg


def report(rows, header):
    out = [header, ""]
    out.append("| # | kernel | project | result | first error |")
    out.append("|---:|---|---|---|---|")
    for r in rows:
        out.append("| %d | `%s` | %s | %s | %s |" % (r.index, r.kernel, r.project, r.result,
                                                    "`%s`" % cell(r.detail) if r.detail else ""))
    out.append("")
    counts = {k: sum(r.result == k for r in rows) for k in RESULTS}
    out.append("Totals: " + ", ".join("%s %d" % (k, counts[k]) for k in RESULTS if counts[k] or k == "OK") +
               " (of %d)." % len(rows))
    groups = {}
    for r in rows:
        if r.result != "OK":
            groups.setdefault((r.result, signature(r.detail)), []).append(r)
    if groups:
        out += ["", "Failures by first error message:", ""]
        out.append("| count | result | message | kernels |")
        out.append("|---:|---|---|---|")
        for (result, sig), rs in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
            out.append("| %d | %s | `%s` | %s |" % (len(rs), result, cell(sig),
                                                   ", ".join("%d `%s`" % (r.index, r.kernel) for r in rs)))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tsv", required=True, help="the kernel list (bench/corpus/kernels.tsv)")
    ap.add_argument("--src", required=True, help="the folder of fetched sources, OWNER+NAME/PATH")
    ap.add_argument("--tilec", default="bin/tilec")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--arch", default="sm_90", help="for tilec's --arch and nvcc's -arch (default sm_90)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=600, help="seconds for each tilec or nvcc run (default 600)")
    ap.add_argument("--only", default="", help="run only the rows whose kernel or path contains TEXT")
    ap.add_argument("--keep", help="keep the generated .cu files in this folder")
    ap.add_argument("--out", help="write the report here instead of standard output")
    opts = ap.parse_args()
    opts.src = os.path.abspath(opts.src)
    for tool in (opts.tilec, opts.nvcc):
        if not shutil.which(tool):
            fail("cannot run %s (build tilec with make, or give --tilec / --nvcc)" % tool)
    rows = [r for r in read_tsv(opts.tsv) if opts.only in r.kernel or opts.only in r.path]

    def work(dirname):
        with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as pool:
            futures = {pool.submit(check, r, opts, dirname): r for r in rows}
            for f in concurrent.futures.as_completed(futures):
                r = futures[f]
                r.result, r.detail = f.result()
                print("coverage: %2d %-40s %s" % (r.index, r.kernel, r.result), file=sys.stderr)

    if opts.keep:
        os.makedirs(opts.keep, exist_ok=True)
        work(opts.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="tilec-coverage-") as d:
            work(d)
    text = report(rows, "Kernels of `%s`, tilec `%s`, nvcc -arch=%s." % (opts.tsv, opts.tilec, opts.arch))
    if opts.out:
        with open(opts.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
