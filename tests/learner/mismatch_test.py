#!/usr/bin/env python3
"""mismatch_test.py: the full mismatch report of issue 16, end to end. `cudalab test` grades a
planted wrong solution of a real lab through the host-backend runner, once as text and once
with --json, and the report of its first failing case must say what is wrong: how many
elements of how many, the first ten in the lab's terms, the largest error, the pattern
guessed (or, for nms and topo_sort, the rule broken and its counterexample). The text run
also writes --junit, whose failing testcase must carry the report. LAB_zh: the text in
Chinese (--lang zh): its labels, the guess or the rule, and no English left of them.

usage: mismatch_test.py --cudalab BIN --runner BIN --solutions DIR --source DIR LAB
Exit 0 pass, 1 fail.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SEED = "20260401"


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def first_wrong(report):
    cases = [c for c in report["cases"] if c.get("status") == "wrong"]
    check(cases, "no wrong case in the report")
    return cases[0]


def elements(m, array, names):
    """The shared shape of an element report."""
    check(m["kind"] == "elements", f"kind {m.get('kind')}")
    check(m["array"] == array, f"array {m['array']}")
    check([d["name"] for d in m["dims"]] == names, f"dims {m['dims']}")
    check(0 < m["wrong"] <= m["total"] <= m["size"], f"counts {m['wrong']} {m['total']} {m['size']}")
    check(1 <= len(m["first"]) <= 10 and len(m["first"]) == min(10, m["wrong"]), f"first {len(m['first'])}")
    for e in m["first"]:
        check(set(e["position"]) == set(names), f"position {e['position']}")
        check(e["where"].startswith(array + "["), e["where"])
        for k in ("expected", "got", "abs_error", "rel_error"):
            check(k in e, f"{k} missing")
    check("largest" in m and "abs" in m["tolerance"], "largest or tolerance missing")
    return m


def lab_reduce(case, m, text):
    elements(m, "out", ["i"])
    check(m["wrong"] == 1 and m["total"] == 1, "reduce has one output")
    check(case["name"] == "n=1" and m["pattern"]["id"] == "zeros", f"{case['name']} {m.get('pattern')}")
    check("1 of 1 elements wrong" in text and "every wrong element is 0" in text, "text")


def lab_transpose(case, m, text):
    # the grid rounded down to 32 x 32 tiles: every case with a partial tile and a full one
    elements(m, "out", ["row", "col"])
    tiled = [c for c in REPORT["cases"] if c.get("mismatch", {}).get("pattern", {}).get("id") == "partial_tile"]
    check(len(tiled) >= 8, f"partial_tile guessed in {len(tiled)} cases")
    c = next(c for c in tiled if c["name"] == "63 x 65")
    p = c["mismatch"]["pattern"]["text"]
    # out is 65 x 63: rows >= 64 or cols >= 32 of out were never written
    check("row >= 64 or col >= 32" in p and "tiles of 32" in p, p)
    check(c["mismatch"]["wrong"] == 65 * 63 - 64 * 32, f"wrong {c['mismatch']['wrong']}")
    check("only the last partial tiles are wrong" in text, "text")


def lab_softmax(case, m, text):
    # the first case has one column (one wrong element: no pattern); 513 x 32 has a row
    m = next(c for c in REPORT["cases"] if c["name"] == "513 x 32")["mismatch"]
    elements(m, "out", ["row", "col"])
    check(m["wrong"] == 32, f"wrong {m['wrong']}")
    check(all(e["position"]["row"] == 1 for e in m["first"]), "only row 1 is wrong")
    check(m["pattern"]["id"] == "one_factor" and "row 1" in m["pattern"]["text"]
          and "got = 2 x expected" in m["pattern"]["text"], m.get("pattern"))
    check(all(abs(e["rel_error"] - 1) < 1e-3 for e in m["first"]), "rel error 1 (twice the answer)")
    check(re.search(r"\d+ of \d+ elements wrong", text) and "out[row 1, col 0]" in text, "text")


def lab_softmax_nomax(case, m, text):
    elements(m, "out", ["row", "col"])
    check(m["nonfinite"] > 0 and m["pattern"]["id"] == "nonfinite", m.get("pattern"))
    check("exp() overflow" in m["pattern"]["text"], m["pattern"]["text"])
    check(m["largest"]["got"] == "nan", m["largest"])


def lab_layernorm(case, m, text):
    elements(m, "y", ["row", "col"])
    check("rule" in m["tolerance"], "layernorm's bound is its own: said in words")
    check("largest error at y[row" in text, "text")


def lab_iou(case, m, text):
    elements(m, "out", ["box a", "box b"])
    n = next(c for c in REPORT["cases"] if c["name"].startswith("n % 4 = 1"))["mismatch"]
    # the last n % 4 columns of every row are skipped: 7 x 4097, one column per row
    check(n["wrong"] == 7 and n["pattern"]["id"] == "partial_tile", n.get("pattern"))
    check(all(e["position"]["box b"] == 4096 for e in n["first"]), "column 4096")


def lab_nms(case, m, text):
    check(m["kind"] == "rule" and m["broken"], m)
    check(m["rule"] == "dropped a box", m["rule"])
    ex = m["example"]
    check(ex["dropped"]["index"] >= 0 and len(ex["dropped"]["box"]) == 4 and "threshold" in ex, ex)
    check("rule broken: dropped a box" in text and "counterexample:" in text, "text")


def lab_topo_sort(case, m, text):
    check(m["kind"] == "rule" and m["rule"] == "edge order", m)
    u, v = m["example"]["edge"]
    pos = m["example"]["positions"]
    check(pos["v"] < pos["u"], f"edge {u} -> {v} at {pos}")
    check(f"edge {u} -> {v}" in m["text"] and "rule broken: edge order" in text, "text")


def lab_paged_attention(case, m, text):
    # returns at once with the output cleared: the first case fails, every element 0
    elements(m, "out", ["seq", "head", "dim"])
    check(case["name"] == "one sequence, context 1", case["name"])
    check(m["pattern"]["id"] == "zeros" and m["wrong"] == m["total"], m.get("pattern"))
    check(all(e["got"] == 0 for e in m["first"]), "got 0")
    check("out[seq 0, head 0, dim 0]" in text and "every wrong element is 0" in text, "text")


# --lang zh: the labels, and the guess or the rule said in Chinese (its English gone)
def zh_softmax_nomax(case, m, text):
    for s in ("个元素错误", "位置", "期望值", "实际值", "最大误差在 out[row 0", "推测：",
              "在答案有限处为 NaN 或 Inf：exp() 溢出（先减去最大值）"):
        check(s in text, f"{s!r} not in the Chinese text")
    for s in ("elements wrong", "largest error at", "pattern:", "where the answer is finite"):
        check(s not in text, f"{s!r} still in the Chinese text")


def zh_topo_sort(case, m, text):
    u, v = m["example"]["edge"]
    for s in ("违反的规则：边的顺序", f"边 {u} -> {v}，但 {v} 在位置", "反例："):
        check(s in text, f"{s!r} not in the Chinese text")
    check("rule broken" not in text and "a node may be output only" not in text, "English left")


LABS = {
    "reduce": ("reduce", "reduce_host_dropped_tail", lab_reduce),
    "transpose": ("transpose", "transpose_host_partial_tile", lab_transpose),
    "softmax": ("softmax", "softmax_host_row_scaled", lab_softmax),
    "softmax_nomax": ("softmax", "softmax_host_nomax", lab_softmax_nomax),
    "layernorm": ("layernorm", "layernorm_host_naive", lab_layernorm),
    "iou": ("iou", "det_iou_host_tail", lab_iou),
    "nms": ("nms", "det_nms_host_dead_suppress", lab_nms),
    "topo_sort": ("topo_sort", "topo_sort_host_by_id", lab_topo_sort),
    "paged_attention": ("paged_attention", "paged_attention_host_early_return", lab_paged_attention),
    "softmax_nomax_zh": ("softmax", "softmax_host_nomax", zh_softmax_nomax),
    "topo_sort_zh": ("topo_sort", "topo_sort_host_by_id", zh_topo_sort),
}


def junit(path, case, m):
    """The failing testcase of the first wrong case carries the report (English)."""
    tc = [t for t in ET.parse(path).getroot().iter("testcase") if t.get("name") == "test " + case["name"]]
    check(len(tc) == 1, f"no testcase 'test {case['name']}' in {path}")
    f = tc[0].find("failure")
    check(f is not None and f.text, "the testcase has no failure text")
    if m["kind"] == "rule":
        check(f"rule broken: {m['rule']}" in f.text and m["text"] in f.text, f.text)
    else:
        check(f"{m['wrong']} of {m['total']} elements wrong" in f.text and "largest error at" in f.text, f.text)
        check(m["first"][0]["where"] in f.text, f.text)
        if "pattern" in m:
            check(m["pattern"]["text"] in f.text, f.text)
REPORT = None


def main():
    global REPORT
    ap = argparse.ArgumentParser()
    for a in ("--cudalab", "--runner", "--solutions", "--source"):
        ap.add_argument(a, required=True)
    ap.add_argument("test", choices=sorted(LABS))
    A = ap.parse_args()
    lab, solution, checker = LABS[A.test]
    d = tempfile.mkdtemp(prefix="cudalab-mismatch-")
    txt = None
    env = dict(os.environ, CUDALAB_HOME=A.source, CUDALAB_DB=os.path.join(d, "p.db"), NO_COLOR="1",
               XDG_CACHE_HOME=os.path.join(d, "cache"), XDG_DATA_HOME=os.path.join(d, "data"))
    base = [A.cudalab, "test", lab, os.path.join(A.solutions, solution + ".so"), "--runner", A.runner,
            "--seed", SEED, "--timeout", "300"]
    try:
        js = subprocess.run(base + ["--json"], env=env, cwd=d, capture_output=True, text=True, timeout=900)
        check(js.returncode == 1, f"--json exit {js.returncode}: {js.stderr[-2000:]}")
        REPORT = json.loads(js.stdout)
        check(REPORT["verdict"] == "wrong", REPORT["verdict"])
        xml = os.path.join(d, "junit.xml")
        lang = ["--lang", "zh"] if A.test.endswith("_zh") else ["--lang", "en"]
        txt = subprocess.run(base + ["--junit", xml] + lang, env=env, cwd=d, capture_output=True, text=True,
                             timeout=900)
        check(txt.returncode == 1, f"text exit {txt.returncode}: {txt.stderr[-2000:]}")
        case = first_wrong(REPORT)
        check("mismatch" in case, f"case '{case['name']}' has no mismatch report")
        check(len(json.dumps(case["mismatch"])) < 16384, "the report is bounded")
        m = case["mismatch"]
        said = m if m["kind"] == "rule" else m.get("pattern")  # a first case may have no guess
        check(not said or (said.get("format") and isinstance(said.get("args"), list)),
              "the guess travels with format and args")
        checker(case, m, txt.stdout)
        junit(xml, case, m)
    except (AssertionError, KeyError, StopIteration, ValueError) as e:
        print(f"FAIL {A.test}: {type(e).__name__}: {e}")
        if txt is not None:
            print(txt.stdout[:4000])
        if REPORT:
            print(json.dumps(first_wrong(REPORT).get("mismatch"), indent=1)[:4000])
        return 1
    print(f"ok {A.test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
