#!/usr/bin/env python3
"""check_tour.py: docs/architecture.md and the README stay true to the tree.

  check_tour.py SOURCE_DIR

Fails (exit 1) when:
  - a folder docs/architecture.md names (`path/` in backticks) does not exist;
  - a top-level folder of the tree is not named in docs/architecture.md's folder table,
    or not listed in the README's Layout section;
  - a bench/ path named in any markdown file of the tree does not exist (history
    references, `COMMIT:bench/...`, are allowed);
  - a lab's ladder step is not linked from that lab's README (English and Chinese).
"""
import os
import re
import subprocess
import sys


def top_level_folders(root):
    """Folders holding tracked files (git), or every folder but build outputs."""
    try:
        files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                               check=True).stdout.split("\n")
        names = {f.split("/")[0] for f in files if "/" in f}
    except (OSError, subprocess.CalledProcessError):  # a copy without .git: skip what git ignores
        ignored = set()
        try:
            for line in open(os.path.join(root, ".gitignore"), encoding="utf-8"):
                m = re.match(r"^/([^*/\s]+)/?\s*$", line)
                if m:
                    ignored.add(m.group(1))
        except OSError:
            pass
        names = {n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n)) and n != ".git"
                 and n not in ignored and not n.startswith("build")
                 and not os.path.exists(os.path.join(root, n, "CMakeCache.txt"))}
    return sorted(n for n in names if os.path.isdir(os.path.join(root, n)))


def markdown_files(root):
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")
                   and not os.path.exists(os.path.join(base, d, "CMakeCache.txt"))]
        for f in files:
            if f.endswith(".md"):
                yield os.path.join(base, f)


def main():
    root = sys.argv[1]
    problems = []
    tour_path = os.path.join(root, "docs", "architecture.md")
    tour = open(tour_path, encoding="utf-8").read()

    named = set(re.findall(r"`((?:\.?[A-Za-z0-9_]+/)+)`", tour))
    for folder in sorted(named):
        if not os.path.isdir(os.path.join(root, folder)):
            problems.append(f"docs/architecture.md names {folder}, which does not exist")
    table = {m for m in re.findall(r"^\| `([^`]+/)` \|", tour, re.M)}
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    layout = re.search(r"^## Layout\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    layout = layout.group(1) if layout else ""
    for top in top_level_folders(root):
        if top + "/" not in table:
            problems.append(f"top-level folder {top}/ is missing from docs/architecture.md's folder table")
        if not re.search(r"(^|\s)" + re.escape(top) + r"/", layout):
            problems.append(f"top-level folder {top}/ is missing from the README's Layout section")

    for md in markdown_files(root):
        text = open(md, encoding="utf-8", errors="replace").read()
        for path in set(re.findall(r"(?<![\w/.:])(bench/[A-Za-z0-9_./<>-]*[A-Za-z0-9_/])", text)):
            if "<" in path:  # a pattern such as bench/results/<date>/
                continue
            if not os.path.exists(os.path.join(root, path)):
                problems.append(f"{os.path.relpath(md, root)} names {path}, which does not exist")

    labs = os.path.join(root, "labs")
    for lab in sorted(os.listdir(labs)):
        ladder = os.path.join(labs, lab, "ladder")
        if not os.path.isdir(ladder):
            continue
        text = open(os.path.join(labs, lab, "README.md"), encoding="utf-8").read()
        zh = text.find("## 中文")
        for step in sorted(f for f in os.listdir(ladder) if f.endswith(".cu")):
            if lab == "gemm":
                continue  # gemm's steps are described in docs/gemm-ladder.md, linked from its README
            link = f"(ladder/{step})"
            if zh < 0 or link not in text[:zh] or link not in text[zh:]:
                problems.append(f"labs/{lab}/README.md does not link ladder/{step} in both languages")

    for p in problems:
        print("FAIL " + p)
    if not problems:
        print("ok: the tour names every folder, the README lists them, bench paths exist, ladders are linked")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
