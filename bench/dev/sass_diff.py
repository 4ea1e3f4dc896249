#!/usr/bin/env python3
"""sass_diff.py: did a change to reference/*.cu change the machine code? (issue 18)

  bench/dev/sass_diff.py [--base REF] [--arch 75,80,...] [-j N] [LAB ...]

Compiles reference/<lab>.cu as it is at REF (default: main) and as it is in the work tree,
for every architecture the lab is graded on, with the grader's device flags (compile.c:
-O3 -std=c++17, one -gencode, -I labs/include; on Hopper sm_90a where lab.yaml says
arch_suffix: a), and compares kernel by kernel:
  - resources, from ptxas: registers, stack frame, spill stores and loads, shared memory,
    barriers; these must be identical;
  - the code: instruction count, and how many instructions differ in the opcode histogram
    (half the L1 distance: 0 when the new code is the old code reordered), and whether the
    two kernels are byte for byte the same.
With cuobjdump on the PATH the histogram is of SASS mnemonics (`cuobjdump -sass`); without
it, of the opcode field (the low 12 bits of each 128-bit instruction, sm_70 and newer),
read straight from the cubin's .text.<kernel> section: same counts, unnamed opcodes.
Cubins are cached under $TMPDIR/cudalab-sass by the hash of source, header, flags and nvcc.
Exits 1 when a kernel's resources differ, or a kernel appears or disappears.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARCHS = [75, 80, 86, 89, 90, 120]  # issue 17: every GPU a student has
CACHE = os.path.join(tempfile.gettempdir(), "cudalab-sass")


def nvcc_path():
    return os.environ.get("CUDALAB_NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def lab_suffix(lab):
    try:
        for line in open(os.path.join(ROOT, "labs", lab, "lab.yaml"), encoding="utf-8"):
            m = re.match(r"^arch_suffix:\s*([af])\b", line)
            if m:
                return m.group(1)
    except OSError:
        pass
    return ""


def compile_cubin(src_text, arch, tag):
    """Compiles one source for one architecture: (cubin path, ptxas log)."""
    header = open(os.path.join(ROOT, "labs", "include", "cudalab_lab.h"), "rb").read()
    nvcc = nvcc_path()
    gencode = "arch=compute_%s,code=sm_%s" % (arch, arch)
    ver = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    key = hashlib.sha256(src_text + header + gencode.encode() + ver.encode()).hexdigest()[:20]
    d = os.path.join(CACHE, key)
    cubin, log = os.path.join(d, "k.cubin"), os.path.join(d, "ptxas.txt")
    if os.path.exists(cubin) and os.path.exists(log):
        return cubin, open(log).read()
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, tag + ".cu")
    open(src, "wb").write(src_text)
    cmd = [nvcc, "-O3", "-std=c++17", "-cubin", "-gencode", gencode, "-I" + os.path.join(ROOT, "labs", "include"),
           "--resource-usage", "-o", cubin + ".tmp", src]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("nvcc failed for %s sm_%s:\n%s" % (tag, arch, r.stderr[-4000:]))
    open(log, "w").write(r.stdout + r.stderr)
    os.rename(cubin + ".tmp", cubin)
    return cubin, r.stdout + r.stderr


def ptxas_resources(log):
    """{function: {regs, stack, spill_st, spill_ld, smem, barriers}} from --resource-usage."""
    res, cur = {}, None
    for line in log.splitlines():
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            cur = res.setdefault(m.group(1), {"regs": 0, "stack": 0, "spill_st": 0, "spill_ld": 0, "smem": 0,
                                             "barriers": 0})
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            cur["stack"], cur["spill_st"], cur["spill_ld"] = map(int, m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m:
            cur["regs"] = int(m.group(1))
            b = re.search(r"used (\d+) barriers", line)
            s = re.search(r"(\d+) bytes smem", line)
            cur["barriers"] = int(b.group(1)) if b else 0
            cur["smem"] = int(s.group(1)) if s else 0
    return res


def elf_text_sections(path):
    """{function: bytes of .text.<function>} from an ELF64 cubin."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = secs[shstrndx]
    out = {}
    for name_off, _typ, _fl, _addr, off, size, *_ in secs:
        s = data[strtab[4] + name_off:data.index(b"\0", strtab[4] + name_off)].decode()
        if s.startswith(".text."):
            out[s[len(".text."):]] = data[off:off + size]
    return out


def sass_mnemonics(path):
    """{function: [mnemonic, ...]} from cuobjdump -sass, or None without cuobjdump."""
    tool = shutil.which("cuobjdump")
    if not tool:
        return None
    txt = subprocess.run([tool, "-sass", path], capture_output=True, text=True).stdout
    out, cur = {}, None
    for line in txt.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m and cur is not None:
            cur.append(m.group(1))
    return out


def histogram(code, names):
    if names is not None:
        return collections.Counter(names)
    return collections.Counter(struct.unpack_from("<Q", code, i)[0] & 0xFFF for i in range(0, len(code), 16))


def analyse(cubin, log):
    res = ptxas_resources(log)
    text = elf_text_sections(cubin)
    names = sass_mnemonics(cubin)
    out = {}
    for fn, code in text.items():
        nm = names.get(fn) if names is not None else None
        out[fn] = {"res": res.get(fn, {}), "code": code, "n": len(nm) if nm is not None else len(code) // 16,
                   "hist": histogram(code, nm)}
    return out


def short(fn):
    """_ZN4sm9016gemm_sm90_kernelILi2EEEv... -> sm90::gemm_sm90_kernel<2>"""
    try:
        name = subprocess.run(["c++filt", fn], capture_output=True, text=True).stdout.strip()
    except OSError:
        return fn
    name = re.sub(r"^void ", "", name)
    return re.sub(r"\(.*\)$", "", name).replace("(int)", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="main")
    ap.add_argument("--arch", default=",".join(map(str, ARCHS)))
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("labs", nargs="*")
    o = ap.parse_args()
    labs = o.labs or sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "reference")) if f.endswith(".cu"))
    archs = [int(a) for a in o.arch.split(",")]
    jobs = []
    for lab in labs:
        rel = "reference/%s.cu" % lab
        old = subprocess.run(["git", "-C", ROOT, "show", "%s:%s" % (o.base, rel)], capture_output=True, check=True).stdout
        new = open(os.path.join(ROOT, rel), "rb").read()
        for a in archs:
            arch = "%d%s" % (a, lab_suffix(lab) if a >= 90 else "")
            jobs.append((lab, arch, old, new))
    with concurrent.futures.ThreadPoolExecutor(o.j) as ex:
        futs = [(lab, arch, ex.submit(compile_cubin, old, arch, lab + "_base"), ex.submit(compile_cubin, new, arch, lab))
                for lab, arch, old, new in jobs]
        bad = same_code = kernels = 0
        print("%-15s %-6s %-28s %-22s %-13s %-8s %s" % ("lab", "sm", "kernel", "regs/stack/spill/smem", "instrs",
                                                       "opcodes", "code"))
        for lab, arch, fb, fn in futs:
            a, b = analyse(*fb.result()), analyse(*fn.result())
            for k in sorted(set(a) | set(b)):
                kernels += 1
                if k not in a or k not in b:
                    bad += 1
                    print("%-15s %-6s %-28s %s" % (lab, arch, short(k), "only before" if k in a else "only after"))
                    continue
                x, y = a[k], b[k]
                r = lambda d: "%d/%d/%d+%d/%d" % (d.get("regs", 0), d.get("stack", 0), d.get("spill_st", 0),
                                                  d.get("spill_ld", 0), d.get("smem", 0))
                res = r(x["res"]) if x["res"] == y["res"] else "%s -> %s" % (r(x["res"]), r(y["res"]))
                bad += x["res"] != y["res"]
                moved = sum(((x["hist"] - y["hist"]) + (y["hist"] - x["hist"])).values()) // 2
                ident = x["code"] == y["code"]
                same_code += ident
                n = "%d" % x["n"] if x["n"] == y["n"] else "%d -> %d" % (x["n"], y["n"])
                print("%-15s %-6s %-28s %-22s %-13s %-8d %s" % (lab, arch, short(k), res, n, moved,
                                                               "identical" if ident else "differs"))
    print("\n%d kernels: %d with resources changed or missing, %d byte-identical (%s histogram)" %
          (kernels, bad, same_code, "SASS mnemonic" if shutil.which("cuobjdump") else "opcode-field"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
