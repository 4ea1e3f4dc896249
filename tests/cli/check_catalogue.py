#!/usr/bin/env python3
"""check_catalogue.py: every sentence the CLI marks for translation has its Chinese.

  check_catalogue.py SOURCE_DIR [--missing]

Collects the English texts in CL_T("...") / CL_N("...") / cl_tr("...") / cl_tr_lang(lang, "...") calls,
the formats of the grader's cl_result_set(r, verdict, "...") calls (grader/src: a report's message), and the command table
(cli/command_table.c: summaries, abouts, flag help; cli/cli_help.c: exit codes) and checks
that common/i18n_catalogue.inc has each, with the same printf conversions in the Chinese.
--missing prints the missing ones as catalogue lines to fill in. Exit 1 when any is missing."""
import re
import sys
from pathlib import Path

LIT = r'"(?:[^"\\]|\\.)*"'
CALL = re.compile(r'\b(?:CL_T\(|CL_N\(|cl_tr\(|cl_tr_lang\([^,()]*,)\s*((?:' + LIT + r'\s*)+)\)')
# the grader's messages and progress lines: cl_result_set(r, v, "fmt"...), set_ending(r, v, "fmt"...),
# progress(g, "fmt"...); each is translated with cl_tr(fmt) where it is shown
RESULT_SET = re.compile(r'\b(?:cl_result_set\(\s*[^,()]+,|set_ending\(\s*[^,()]+,|progress\()\s*[^,()]+(?:\([^()]*\))?,\s*((?:' + LIT + r'\s*)+)')
CONV = re.compile(r'%[-+#0]*\*?\d*(?:\.\*?\d+)?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcspn%]')


def join(lits):
    return "".join(re.findall(LIT, lits)).replace('""', "")


def strings(src):
    found = set()
    for path in list(src.glob("cli/*.c")) + list(src.glob("common/*.c")) + list(src.glob("grader/src/*.c")):
        text = path.read_text(encoding="utf-8")
        for m in CALL.finditer(text):
            found.add(join(m.group(1)))
        if path.parent.name == "src":
            for m in RESULT_SET.finditer(text):
                found.add(join(m.group(1)))
        if path.name == "command_table.c":
            # {"name", arg, "help"} flags and the rows' summary and about texts
            for m in re.finditer(r'\{"[a-z-]+",\s*(?:NULL|"[^"]*"),\s*((?:' + LIT + r'\s*)+)\}', text):
                found.add(join(m.group(1)))
            for m in re.finditer(r'cmd_[a-z_]+,\s*' + LIT + r',\s*((?:' + LIT + r'\s*)+),\s*((?:' + LIT + r'\s*)+|NULL),', text):
                found.add(join(m.group(1)))
                if m.group(2) != "NULL":
                    found.add(join(m.group(2)))
        if path.name == "cli_help.c":
            for m in re.finditer(r'\{CL_EXIT_[A-Z]+,\s*(' + LIT + r')\}', text):
                found.add(join(m.group(1)))
    return {s[1:-1] for s in found if re.search(r"[A-Za-z]{2}", s)}


def catalogue(src):
    text = (src / "common" / "i18n_catalogue.inc").read_text(encoding="utf-8")
    pairs = {}
    for m in re.finditer(r'\{\s*((?:' + LIT + r'\s*)+),\s*((?:' + LIT + r'\s*)+)\}', text):
        pairs[join(m.group(1))[1:-1]] = join(m.group(2))[1:-1]
    return pairs


def main():
    src = Path(sys.argv[1])
    want, have = strings(src), catalogue(src)
    missing = sorted(want - set(have))
    bad = [en for en in want & set(have) if CONV.findall(en) != CONV.findall(have[en])]
    if "--missing" in sys.argv:
        for en in missing:
            print(f'    {{"{en}",\n     ""}},')
        return 0
    for en in missing:
        print(f"no Chinese for: {en}")
    for en in bad:
        print(f"printf conversions differ: {en!r} vs {have[en]!r}")
    print(f"{len(want)} texts, {len(missing)} without Chinese, {len(bad)} with other conversions")
    return 1 if missing or bad else 0


if __name__ == "__main__":
    sys.exit(main())
