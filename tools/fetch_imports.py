#!/usr/bin/env python3
"""Bring the project modules that the corpus files import into the corpus folder.

    python3 tools/fetch_imports.py DIR [--tsv bench/corpus/kernels.tsv] [--mirrors MDIR]

tools/fetch_corpus.sh fetches the file of each kernel that the TSV names; many of them import
helpers from other files of their project (`from .utils import triton_cast`,
`from fla.ops.utils.op import exp`, `from flag_gems.utils import triton_lang_extension as tle`),
which tilec follows as Python would.  This tool adds those files, at the same commit, as
OWNER+NAME/PATH under DIR:

  - the package `__init__.py` files above each kernel file (what makes its package root);
  - for each module-level import of a fetched file (also under `if`/`try`) that leads into the
    same repository: the module's file (`a/b.py` or `a/b/__init__.py`), the `__init__.py` of
    each package on its dotted path, and, for `from a.b import c`, the submodule `a/b/c.py`
    where there is one;
  - recursively, the imports of every module fetched that way.  A package's `__init__.py` that
    was fetched only because it lies on a path is not followed further, except for the imports
    that bind a name asked of it (`from flag_gems.utils import libentry`, where `utils/__init__`
    says `from .libentry import libentry`): following all of them would fetch the whole project.

An absolute import `a.b` leads into the repository when a folder `a` or a file `a.py` lies in
the importing file's folder or one above it (the nearest wins, as tilec searches); `triton`
itself is never followed (tilec knows Triton's modules), nor anything outside the repository
(torch, transformers).  Imports inside functions are host code and are not followed.

Where the files come from: by default GitHub (the repository's file list from
api.github.com, each file from raw.githubusercontent.com; network needed); with --mirrors MDIR,
local git mirrors MDIR/OWNER+NAME (a bare repository, or one with a `repo` or `.git` folder in
it), read with `git ls-tree` and `git show`.  A file already in DIR is kept.  Prints one line
per file added; the exit status is 1 if a repository could not be listed or a file not read.
The files belong to their projects: keep DIR outside the repository and commit none of them.
"""
import argparse
import ast
import json
import os
import subprocess
import sys
import urllib.request


class Repo:
    """One repository at one commit: its file list and its files' text."""

    def __init__(self, name, commit, mirrors):
        self.name, self.commit = name, commit
        self.git_dir = None
        if mirrors:
            base = os.path.join(mirrors, name.replace("/", "+"))
            for cand in (os.path.join(base, "repo"), os.path.join(base, ".git"), base):
                if os.path.exists(os.path.join(cand, "HEAD")):
                    self.git_dir = cand
                    break
            if self.git_dir is None:
                raise OSError("no git mirror of %s under %s" % (name, mirrors))
        self.files = set(self._list())
        self.dirs = {os.path.dirname(f) for f in self.files}
        for d in list(self.dirs):
            while d:
                d = os.path.dirname(d)
                self.dirs.add(d)

    def _list(self):
        if self.git_dir:
            out = subprocess.run(["git", "--git-dir", self.git_dir, "ls-tree", "-r", "--name-only",
                                  self.commit], check=True, capture_output=True, text=True).stdout
            return out.splitlines()
        url = "https://api.github.com/repos/%s/git/trees/%s?recursive=1" % (self.name, self.commit)
        with urllib.request.urlopen(url, timeout=60) as r:
            tree = json.load(r)
        if tree.get("truncated"):
            print("fetch_imports: %s: GitHub's file list is truncated; some imports may be missed"
                  % self.name, file=sys.stderr)
        return [e["path"] for e in tree["tree"] if e["type"] == "blob"]

    def read(self, path):
        if self.git_dir:
            return subprocess.run(["git", "--git-dir", self.git_dir, "show", "%s:%s" % (self.commit, path)],
                                  check=True, capture_output=True).stdout
        url = "https://raw.githubusercontent.com/%s/%s/%s" % (self.name, self.commit, path)
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.read()


def module_imports(tree):
    """(level, module, names) of each module-level import, also under if/try blocks."""
    out = []

    def walk(body):
        for st in body:
            if isinstance(st, ast.Import):
                out.extend((0, a.name, [], a.asname or a.name.split(".")[0]) for a in st.names)
            elif isinstance(st, ast.ImportFrom):
                out.append((st.level, st.module or "", [a.name for a in st.names],
                            [a.asname or a.name for a in st.names]))
            elif isinstance(st, ast.If):
                walk(st.body)
                walk(st.orelse)
            elif isinstance(st, ast.Try):
                walk(st.body)
                for h in st.handlers:
                    walk(h.body)
                walk(st.orelse)
                walk(st.finalbody)
    walk(tree.body)
    return out


class Fetcher:
    def __init__(self, out_dir, repo):
        self.out_dir, self.repo = out_dir, repo
        self.done = set()         # files whose imports were followed (all, or the asked names)
        self.asked = {}           # __init__.py -> names asked of it, already followed
        self.failed = False

    def local(self, path):
        return os.path.join(self.out_dir, self.repo.name.replace("/", "+"), path)

    def ensure(self, path):
        """path in DIR (fetched if missing); False if it cannot be had."""
        dest = self.local(path)
        if os.path.exists(dest):
            return True
        try:
            data = self.repo.read(path)
        except Exception as e:
            print("fetch_imports: cannot read %s/%s @ %s: %s" % (self.repo.name, path, self.repo.commit, e),
                  file=sys.stderr)
            self.failed = True
            return False
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest + ".part", "wb") as f:
            f.write(data)
        os.replace(dest + ".part", dest)
        print("fetched %s/%s @ %s" % (self.repo.name, path, self.repo.commit))
        return True

    def tree(self, path):
        try:
            with open(self.local(path), "rb") as f:
                return ast.parse(f.read(), path)
        except (OSError, SyntaxError, ValueError) as e:
            print("fetch_imports: cannot parse %s/%s: %s" % (self.repo.name, path, e), file=sys.stderr)
            return None

    def package_inits(self, folder, stop=""):
        """The __init__.py of folder and of each folder above it down to stop, while they exist."""
        while folder != stop and folder and os.path.join(folder, "__init__.py") in self.repo.files:
            self.ensure(os.path.join(folder, "__init__.py"))
            folder = os.path.dirname(folder)

    def module_file(self, base):
        """The file of module folder path base (a/b): a/b.py or a/b/__init__.py, or None."""
        for cand in (base + ".py", os.path.join(base, "__init__.py")):
            if cand in self.repo.files:
                return cand
        return None

    def root_for(self, folder, top):
        """The folder at or above `folder` that holds package or module `top`, or None."""
        while True:
            cand = os.path.join(folder, top) if folder else top
            if cand in self.repo.dirs or cand + ".py" in self.repo.files:
                return folder
            if not folder:
                return None
            folder = os.path.dirname(folder)

    def follow(self, path, names=None):
        """Follow the imports of file path: all of them, or (names given, an __init__.py
        reached as a package) only those that bind one of names."""
        if names is None:
            if path in self.done:
                return
            self.done.add(path)
        else:
            seen = self.asked.setdefault(path, set())
            names = set(names) - seen
            if path in self.done or not names:
                return
            seen |= names
        tree = self.tree(path)
        if tree is None:
            return
        folder = os.path.dirname(path)
        for level, module, imported, bound in module_imports(tree):
            if names is not None and not (set(bound) & names):
                continue
            if level:
                root = folder
                for _ in range(level - 1):
                    root = os.path.dirname(root)
                parts = module.split(".") if module else []
                stop = root
            else:
                parts = module.split(".")
                if parts[0] == "triton":
                    continue
                root = self.root_for(folder, parts[0])
                if root is None:
                    continue          # outside the repository: torch, transformers, ...
                stop = root
            self.import_module(root, parts, imported, stop)

    def import_module(self, root, parts, imported, stop):
        base = os.path.join(root, *parts) if parts else root
        # the packages on the dotted path (their __init__.py run first in Python)
        for i in range(1, len(parts)):
            init = os.path.join(root, *parts[:i], "__init__.py")
            if init in self.repo.files:
                self.ensure(init)
        target = self.module_file(base) if parts else (os.path.join(root, "__init__.py")
                                                        if os.path.join(root, "__init__.py") in self.repo.files
                                                        else None)
        if target and self.ensure(target):
            if target.endswith("__init__.py"):
                self.follow(target, imported)
            else:
                self.follow(target)
        self.package_inits(os.path.dirname(target) if target else base, stop)
        for name in imported:
            sub = self.module_file(os.path.join(base, name))
            if sub and self.ensure(sub):
                self.follow(sub)


def read_rows(tsv):
    rows = []
    for line in open(tsv).read().splitlines():
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if cols[0] == "repo" or len(cols) < 3:
            continue
        rows.append((cols[0], cols[1], cols[2]))
    return sorted(set(rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", help="the corpus folder (OWNER+NAME/PATH), the kernel files already in it")
    ap.add_argument("--tsv", default="bench/corpus/kernels.tsv")
    ap.add_argument("--mirrors", help="read from local git mirrors MDIR/OWNER+NAME instead of GitHub")
    opts = ap.parse_args()
    failed = False
    by_repo = {}
    for repo, path, commit in read_rows(opts.tsv):
        by_repo.setdefault((repo, commit), []).append(path)
    for (name, commit), paths in sorted(by_repo.items()):
        try:
            repo = Repo(name, commit, opts.mirrors)
        except Exception as e:
            print("fetch_imports: cannot list %s @ %s: %s" % (name, commit, e), file=sys.stderr)
            failed = True
            continue
        f = Fetcher(opts.dir, repo)
        for path in paths:
            if not f.ensure(path):
                continue
            f.package_inits(os.path.dirname(path))
            f.follow(path)
        failed |= f.failed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
