#!/usr/bin/env python3
"""Fused multiply-adds in the libraries PyTorch calls, per ISA: the
disassembly behind adapters/pytorch/README.md (glibc's float tanh, and the
reference BLAS's sgemm/sgemv that torch.mm, nn.Linear and numpy call).

    fma_disasm.py --sysroots build/pytorch-sysroot [--arches arm64,s390x,ppc64el] [--host-root /]

For this machine's libraries (x86_64) and those of each sysroot that
`make pytorch-sysroots` unpacked (Debian's own packages for that ISA), it
finds each function in the library's dynamic symbol table (address and size:
`objdump -T`), disassembles exactly that range with the ISA's cross objdump,
and prints per function: the fused multiply-add instructions by mnemonic, the
separately rounded float multiply/add/subtract instructions, and, for
`tanhf`, the functions it calls. An ifunc symbol (variants chosen at run time
by CPUID) is named as such, since its body is only the resolver.
Libraries: libm.so.6 (glibc: tanhf, expm1f, expf) and blas/libblas.so.3
(Debian's libblas3, the netlib reference BLAS compiled by gfortran: sgemm_,
sgemv_).

Only the disassembly is read: nothing here runs code of another ISA.
Exit status 0 when every library was read, 2 otherwise.
"""
import argparse
import os
import re
import subprocess
import sys

# debian arch -> (objdump, triplet)
ISAS = {
    "amd64": ("x86_64-linux-gnu-objdump", "x86_64-linux-gnu"),
    "arm64": ("aarch64-linux-gnu-objdump", "aarch64-linux-gnu"),
    "s390x": ("s390x-linux-gnu-objdump", "s390x-linux-gnu"),
    "ppc64el": ("powerpc64le-linux-gnu-objdump", "powerpc64le-linux-gnu"),
}
NAMES = {"amd64": "x86_64", "arm64": "aarch64", "s390x": "s390x", "ppc64el": "ppc64le"}
# library (relative to the root, with the triplet) -> functions
LIBS = (("lib/{t}/libm.so.6", ("tanhf", "expm1f", "expf")),
        ("usr/lib/{t}/blas/libblas.so.3", ("sgemm_", "sgemv_")))

# fused multiply-add (one rounding for a*b+c), float or double, scalar or vector
FUSED = re.compile(r"^(vfn?m(add|sub)\d+[sp][sd]"          # x86 FMA3
                   r"|fn?m(add|sub)|fml[as]"                  # aarch64
                   r"|m[as][ed]br?|[vw]fn?m[as][sd]b"        # s390x
                   r"|fn?m(add|sub)s?\.?|x[sv]n?m(add|sub)[am][sd]p)$")  # ppc64le
# separately rounded float32 multiply / add / subtract
SEPARATE = re.compile(r"^(v?(mul|add|sub)ss"                 # x86
                      r"|f(mul|add|sub)"                      # aarch64 (s and v regs)
                      r"|[as]ebr?|meebr?|[vw]f[ams]sb"       # s390x
                      r"|f(mul|add|sub)s|xs(mul|add|sub)sp)$")  # ppc64le


def lib_path(root, rel, triplet):
    """The library under root; Debian 12 ships libm in /lib, a merged-/usr root in /usr/lib."""
    rel = rel.format(t=triplet)
    for r in (rel, "usr/" + rel if not rel.startswith("usr/") else rel[4:]):
        p = os.path.join(root, r)
        if os.path.exists(p):
            return p
    return None


def symbols(objdump, lib, funcs):
    """name -> (address, size, is_ifunc) for funcs, from the dynamic symbol table."""
    out = subprocess.run([objdump, "-T", lib], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        w = line.split()
        # 0000000000040260  w   DF .text  00000000000003b1  GLIBC_2.2.5 expm1f
        if len(w) >= 6 and w[-1] in funcs and ".text" in w:
            i = w.index(".text")
            flags = " ".join(w[1:i])
            # prefer the default version (no parentheses around the version)
            if w[-1] in syms and w[-2].startswith("("):
                continue
            syms[w[-1]] = (int(w[0], 16), int(w[i + 1], 16), "i" in flags.split()[-1])
    return syms


def disassemble(objdump, lib, addr, size):
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", "--start-address=%#x" % addr,
                          "--stop-address=%#x" % (addr + size), lib], capture_output=True, text=True, check=True).stdout
    insns = []
    for line in out.splitlines():
        m = re.match(r"^\s*[0-9a-f]+:\s+(\S+)\s*(.*)$", line)
        if m:
            insns.append((m.group(1), m.group(2)))
    return insns


def summarize(insns):
    fused, sep, calls = {}, {}, []
    for mn, ops in insns:
        if FUSED.match(mn):
            fused[mn] = fused.get(mn, 0) + 1
        elif SEPARATE.match(mn):
            sep[mn] = sep.get(mn, 0) + 1
        if mn in ("call", "bl", "brasl", "jg", "b", "jmp") and "<" in ops:
            target = ops.split("<", 1)[1].split(">", 1)[0]
            if mn in ("call", "bl", "brasl"):  # a call (ppc64le: to the local entry, symbol+0x8)
                calls.append(target.split("+", 1)[0])
            elif "+0x" not in target:  # a tail call to another symbol, not a local jump
                calls.append(target)
    return fused, sep, sorted(set(calls))


def fmt_counts(d):
    return "%d (%s)" % (sum(d.values()), ", ".join("%s %d" % kv for kv in sorted(d.items()))) if d else "0"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sysroots", required=True)
    ap.add_argument("--arches", default="arm64,s390x,ppc64el")
    ap.add_argument("--host-root", default="/")
    a = ap.parse_args()
    roots = [("amd64", a.host_root)]
    for arch in [s for s in a.arches.split(",") if s]:
        if arch not in ISAS:
            print("fma_disasm: unknown architecture %r" % arch)
            return 2
        roots.append((arch, os.path.join(a.sysroots, arch, "root")))
    bad = 0
    for (arch, root), (rel, funcs) in [(r, l) for l in LIBS for r in roots]:
        objdump, triplet = ISAS[arch]
        lib = lib_path(root, rel, triplet)
        if not lib:
            print("fma_disasm: %s: no %s under %s (make pytorch-sysroots)" % (NAMES[arch], rel.format(t=triplet), root))
            bad += 1
            continue
        try:
            syms = symbols(objdump, lib, funcs)
        except (OSError, subprocess.CalledProcessError) as e:
            print("fma_disasm: %s: %s -T %s failed: %s" % (NAMES[arch], objdump, lib, e))
            bad += 1
            continue
        for fn in funcs:
            if fn not in syms:
                print("fma_disasm: %-8s %-7s not in the dynamic symbol table of %s" % (NAMES[arch], fn, lib))
                bad += 1
                continue
            addr, size, ifunc = syms[fn]
            if ifunc:
                print("%-8s %-7s ifunc (variants chosen by CPUID at run time; the body is a resolver)" % (NAMES[arch], fn))
                continue
            fused, sep, calls = summarize(disassemble(objdump, lib, addr, size))
            print("%-8s %-7s %4d bytes  fused multiply-add: %-28s separate float mul/add/sub: %s%s"
                  % (NAMES[arch], fn, size, fmt_counts(fused), fmt_counts(sep),
                     ("  calls: " + ", ".join(calls)) if fn == "tanhf" else ""))
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
