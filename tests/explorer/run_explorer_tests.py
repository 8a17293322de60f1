#!/usr/bin/env python3
"""The explorer's page (tilec --emit html) driven in headless chromium.

    python3 tests/explorer/run_explorer_tests.py [--tilec bin/tilec] [NAME...]

For each case (a golden's flags, tests/golden/NAME.flags) the page is made, loaded from
file:// and checked against tilec's own outputs:
  - it loads (the load event; the best of three loads) in under a second;
  - clicking a source line highlights exactly the CUDA lines that carry its comment (the
    comment line and those after it up to the next source comment, a blank line or a line
    indented less than the comment, read here from the .cu itself), and clicking a CUDA
    line highlights its source line;
  - every drawn grid has one cell per element, whose owner (thread and register) is the
    first owner tilec's layout map gives (tilec --emit svg --value %ID lists them all);
  - choosing a thread (by clicking a cell, then with the thread field) outlines exactly
    the cells that thread owns in every grid;
  - each reduction's input shows, for that thread, the elements it combines itself, those
    shuffled in from its warp and those from other warps, as the owners say;
  - the console shows no error and no script throws.
Skipped, with a message, when chromium is not installed.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = ["softmax_row_fp32", "softmax_rows2d_fp32", "layer_norm_fwd_fp16", "matmul_fp16_pipelined",
         "attn_fwd_causal_fp16"]
LOAD_LIMIT_MS = 1000
COMMENT = re.compile(r"^( *)// (\S+\.py:\d+)  ")


def tilec(args, flags, *extra):
    r = subprocess.run([args.tilec] + flags + list(extra), cwd=ROOT, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("tilec %s failed: %s" % (" ".join(flags + list(extra)), r.stderr))
    return r.stdout


def cuda_groups(cu):
    """key -> the numbers of the CUDA lines that carry its comment."""
    groups, key, indent = {}, None, 0
    for no, line in enumerate(cu.split("\n"), 1):
        m = COMMENT.match(line)
        lead = len(line) - len(line.lstrip(" "))
        if m:
            key, indent = m.group(2), len(m.group(1))
        elif key and (not line.strip(" ") or lead < indent):
            key = None
        if key:
            groups.setdefault(key, set()).add(no)
    return groups


def owners_from_svg(svg):
    """Cell i -> every 'thread:register' that holds it, from tilec --emit svg."""
    cells = {}
    for m in re.finditer(r'data-i="(\d+)" data-owners="([^"]*)"', svg):
        cells[int(m.group(1))] = m.group(2).split()
    return [cells[i] for i in range(len(cells))]


class Check:
    def __init__(self, name):
        self.name, self.failures = name, []

    def expect(self, ok, what):
        if not ok:
            self.failures.append(what)
        return ok


def click_element(page, selector, find="document.querySelector(%r)"):
    """Scroll the element into view and click its middle with the mouse."""
    box = page.eval("(() => { const e = " + (find % selector) + "; if (!e) return null;"
                    " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                    " return [r.left + Math.min(r.width / 2, 200), r.top + r.height / 2]; })()")
    if box is None:
        raise RuntimeError("no element %s" % selector)
    page.click(box[0], box[1])


def selected(page, pane):
    return set(page.eval("[...document.querySelectorAll('#%s .ln.sel')].map(e => +e.querySelector('.no').textContent)"
                         % pane))


def check_links(page, cu, c):
    groups = cuda_groups(cu)
    shown = page.eval("[...document.querySelectorAll('#cu .ln')].map(e => e.dataset.loc || '')")
    c.expect(len(shown) == len(cu.rstrip("\n").split("\n")), "the CUDA pane has %d lines, the .cu %d"
             % (len(shown), len(cu.rstrip("\n").split("\n"))))
    for key, lines in sorted(groups.items()):
        file, line = key.rsplit(":", 1)
        src_sel = '#src .ln[data-loc="%s"]' % key
        if not page.eval("!!document.querySelector(%r)" % src_sel):
            c.expect(False, "no source line for %s" % key)
            continue
        click_element(page, src_sel)
        got = selected(page, "cu")
        c.expect(got == lines, "click %s: CUDA lines %s, expected %s" % (key, sorted(got), sorted(lines)))
        c.expect(selected(page, "src") == {int(line)}, "click %s: source lines %s" % (key, selected(page, "src")))
        # the reverse: the group's last CUDA line chooses the source line
        last = max(lines)
        click_element(page, last, "document.querySelectorAll('#cu .ln')[%d - 1]")
        c.expect(selected(page, "src") == {int(line)}, "click CUDA line %d: source lines %s, expected %s"
                 % (last, sorted(selected(page, "src")), line))
    return len(groups)


def page_grids(page, owners=True):
    """[values drawn (ids), first owners 'thread:register' per cell (or '' without owners),
    cells outlined]."""
    cells = "[...b.querySelector('svg g').children].map(r => r.dataset.t + ':' + r.dataset.r).join(' ')" if owners else "''"
    return page.eval("[...document.querySelectorAll('.grid[data-values]')].map(b => [b.dataset.values.split(' ').map(Number),"
                     " " + cells + ","
                     " [...b.querySelectorAll('svg .marks rect')].map(r => +r.dataset.i).sort((x, y) => x - y)])")


def svg_owners(args, flags, vids, expected):
    """expected[vid] = owners_from_svg of each value not yet in expected, one tilec --emit svg
    each, JOBS of them at a time."""
    todo = sorted(set(vids) - set(expected))
    jobs = int(os.environ.get("JOBS") or os.cpu_count() or 2)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        svgs = pool.map(lambda vid: tilec(args, flags, "--emit", "svg", "--value", "%%%d" % vid), todo)
        for vid, svg in zip(todo, svgs):
            expected[vid] = owners_from_svg(svg)


def check_grids(args, flags, page, c):
    n = page.eval("explorer.drawAll()")
    grids = page_grids(page)
    c.expect(n >= len(grids) > 0, "drawAll drew %s grids, the page holds %d value grids" % (n, len(grids)))
    expected = {}
    svg_owners(args, flags, [vid for vids, _, _ in grids for vid in vids], expected)
    cells = 0
    for vids, got, _ in grids:
        got = got.split()
        cells += len(got)
        for vid in vids:  # a grid drawn for several values must be each one's
            want = [o[0] for o in expected[vid]]
            c.expect(got == want, "value %%%d: %d cells, expected %d; first difference at %s" % (
                vid, len(got), len(want), next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), "the end")))
    values = set(page.eval("explorer.facts.values.map(v => v.id)"))
    c.expect(values <= set(expected), "values without a grid: %s" % sorted(values - set(expected))[:10])
    return grids, expected, cells


def check_thread(page, expected, threads, c, how):
    t = page.eval("+document.getElementById('thread').value")
    for vids, _, own in page_grids(page, owners=False):
        vid = vids[0]
        want = [i for i, o in enumerate(expected[vid]) if any(x.split(":")[0] == str(t) for x in o)]
        c.expect(own == want, "%s: thread %d in value %%%d: outlined %s..., expected %s..." % (
            how, t, vid, own[:8], want[:8]))
    return t


def check_threads(page, grids, expected, c):
    threads = page.eval("explorer.facts.threads")
    # click a cell whose first owner is not thread 0 (the thread at load): that owner is chosen
    vids, firsts = next(((v, f.split()) for v, f, _ in grids if any(not o.startswith("0:") for o in f.split())),
                        (grids[0][0], grids[0][1].split()))
    vid = vids[0]
    k = next((i for i, o in enumerate(firsts) if not o.startswith("0:")), len(firsts) - 1)
    sel = '.grid[data-values="%s"] svg g rect:nth-child(%d)' % (" ".join(map(str, vids)), k + 1)
    click_element(page, sel)
    t = check_thread(page, expected, threads, c, "click")
    c.expect(str(t) == firsts[k].split(":")[0], "clicking cell %d of %%%d chose thread %d, its owner is %s"
             % (k, vid, t, firsts[k]))
    # type the last thread into the field
    click_element(page, "#thread")
    page.call("Input.dispatchKeyEvent", type="keyDown", key="a", code="KeyA", modifiers=2,
              commands=["selectAll"])
    page.call("Input.insertText", text=str(threads - 1))
    t2 = check_thread(page, expected, threads, c, "thread field")
    c.expect(t2 == threads - 1, "typing %d chose thread %d" % (threads - 1, t2))
    return [t, t2]


def check_reductions(args, flags, page, expected, c):
    """The chosen thread's view of each reduction's input: its own elements, those that
    reach it by shuffles (held in its warp) and those through shared memory (other warps)."""
    page.eval("explorer.drawAll()")
    t = page.eval("+document.getElementById('thread').value")
    boxes = page.eval("[...document.querySelectorAll('.grid[data-reduce]')].map(b => [+b.dataset.reduce,"
                      " +b.dataset.axis, [...b.querySelector('svg g').children].map(r =>"
                      " ['self', 'shfl', 'smem', 'quiet'].find(k => r.classList.contains(k)) || '?')])")
    svg_owners(args, flags, [vid for vid, _, _ in boxes], expected)
    for vid, axis, got in boxes:
        shape = next(v["shape"] for v in page.eval("explorer.facts.values") if v["id"] == vid)
        owners = [[int(x.split(":")[0]) for x in o] for o in expected[vid]]

        def coords(i):
            cs = []
            for n in reversed(shape):
                cs.insert(0, i % n)
                i //= n
            return cs

        def rest(i):
            cs = coords(i)
            cs[axis] = 0
            return tuple(cs)

        mine = {rest(i) for i, o in enumerate(owners) if t in o}
        want = []
        for i, o in enumerate(owners):
            if rest(i) not in mine:
                want.append("quiet")
            elif t in o:
                want.append("self")
            elif any(u // 32 == t // 32 for u in o):
                want.append("shfl")
            else:
                want.append("smem")
        c.expect(got == want, "reduction of %%%d, thread %d: cell classes differ first at %s" % (
            vid, t, next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), "the end")))
    return len(boxes)


def console_errors(page):
    errs = []
    for e in page.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            errs.append(p["exceptionDetails"].get("text", "exception"))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
            errs.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
            errs.append(p["entry"].get("text", ""))
    return errs


def run_case(args, browser, name, tmp):
    c = Check(name)
    flags = shlex.split(open(os.path.join(ROOT, "tests", "golden", name + ".flags")).readline())
    cu = tilec(args, flags)
    path = os.path.join(tmp, name + ".html")
    tilec(args, flags, "--emit", "html", "-o", path)
    page = browser.page()
    for domain in ("Page", "Runtime", "Log"):
        page.call(domain + ".enable")
    # the page's own cost, not the browser's start: the best of three loads
    times = []
    for _ in range(3):
        page.call("Page.navigate", url="file://" + path)
        page.wait_event("Page.loadEventFired")
        times.append(page.eval("performance.getEntriesByType('navigation')[0].loadEventEnd"))
    load_ms = min(times)
    c.expect(load_ms < LOAD_LIMIT_MS, "the page took %.0f ms to load (limit %d; loads: %s)"
             % (load_ms, LOAD_LIMIT_MS, ", ".join("%.0f" % t for t in times)))
    nlinks = check_links(page, cu, c)
    grids, expected, cells = check_grids(args, flags, page, c)
    chosen = check_threads(page, grids, expected, c) if grids else []
    nred = check_reductions(args, flags, page, expected, c)
    errs = console_errors(page)
    c.expect(not errs, "console: %s" % errs[:5])
    status = "ok" if not c.failures else "FAILED"
    print("explorer: %s: loaded in %.0f ms; %d source lines linked; %d grids, %d cells; threads %s; %d reductions: %s"
          % (name, load_ms, nlinks, len(grids), cells, chosen, nred, status))
    for f in c.failures[:20]:
        print("    " + f)
    return not c.failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec", default=os.environ.get("TILEC", "bin/tilec"))
    ap.add_argument("cases", nargs="*", default=CASES)
    args = ap.parse_args()
    if not cdp.find_chromium():
        print("explorer-test: skipped: chromium is not installed (Debian: apt-get install chromium)")
        return 0
    ok = True
    with tempfile.TemporaryDirectory(prefix="tilec-explorer-") as tmp:
        browser = cdp.Browser()
        try:
            for name in args.cases:
                ok &= run_case(args, browser, name, tmp)
        finally:
            browser.close()
    print("explorer: %s" % ("all cases passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
