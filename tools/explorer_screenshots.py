#!/usr/bin/env python3
"""The screenshots of docs/EXPLORER.md: the explorer's page of three examples, taken by
headless chromium (through tests/explorer/cdp.py) at 1280 px, with a source line and a
thread chosen as a reader would.

    python3 tools/explorer_screenshots.py [--tilec bin/tilec] [--out docs/explorer]
"""
import argparse
import base64
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "explorer"))
import cdp  # noqa: E402

# (golden whose flags make the page, source line to choose, thread, section to show, picture)
SHOTS = [
    ("softmax_row_fp32", "softmax.py:31", 37, "#code", "softmax_code.png"),
    ("softmax_row_fp32", "softmax.py:31", 37, "#reductions", "softmax_reduction.png"),
    ("layer_norm_fwd_fp16", "layer_norm.py:31", 5, "#tiles", "layer_norm_tiles.png"),
    ("matmul_fp16_pipelined", "matmul.py:85", 5, "#dots", "matmul_dot.png"),
    ("matmul_fp16_pipelined", "matmul.py:93", 5, "#buffers .controls", "matmul_conversion.png"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec", default="bin/tilec")
    ap.add_argument("--out", default=os.path.join("docs", "explorer"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    browser = cdp.Browser(1280, 1000)
    try:
        page = browser.page()
        page.call("Page.enable")
        with tempfile.TemporaryDirectory() as tmp:
            for golden, line, thread, section, png in SHOTS:
                flags = shlex.split(open(os.path.join(ROOT, "tests", "golden", golden + ".flags")).readline())
                path = os.path.join(tmp, golden + ".html")
                subprocess.run([args.tilec] + flags + ["--emit", "html", "-o", path], cwd=ROOT, check=True)
                page.call("Page.navigate", url="file://" + path)
                page.wait_event("Page.loadEventFired")
                page.eval("explorer.drawAll(); explorer.setThread(%d); explorer.selectLoc(%r);"
                          "document.querySelector(%r).scrollIntoView(); window.scrollBy(0, -40); 0"
                          % (thread, line, section))
                shot = page.call("Page.captureScreenshot", format="png")
                with open(os.path.join(args.out, png), "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
                print("wrote", os.path.join(args.out, png))
    finally:
        browser.close()


if __name__ == "__main__":
    main()
