#!/usr/bin/env python3
"""Check that no code reachable from the baseline can execute an instruction
of a higher x86 ISA level than the function it belongs to.

  python3 tests/isa/check_isa_linkage.py BINARY [--objdump objdump] [--allow REGEX ...]

Every x86 driver is compiled once per ISA level inside namespace
kite::<isa> (cmake/kite_layers.cmake). Code outside those namespaces (the
core, the reference layers and every std:: or other inline/template copy the
linker merged) must run on the baseline CPU, so it may contain no VEX-encoded
(AVX/AVX2/FMA/F16C) or EVEX-encoded (AVX-512) instruction; kite::avx* may
use VEX, kite::avx512* VEX and EVEX. A violation is what happens when the
linker keeps, say, the AVX-512 copy of std::vector<int>'s constructor: the
AVX2 driver that calls it dies with SIGILL on an AVX2-only CPU.

Functions that switch ISA on purpose behind a run-time CPU check (a target
attribute) are listed with --allow (regular expressions on the demangled
name). Exit 0 clean, 1 with the offending functions listed, 77 when the
binary is not x86-64.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

LEGACY_PREFIXES = {"66", "f2", "f3", "2e", "3e", "26", "64", "65", "36", "f0"}


def isa_namespaces(name):
    """The kite::<isa> namespaces a symbol mentions (demangled or, where
    the demangler gave up, e.g. on OpenMP outlined clones, mangled): such a
    symbol can only come from that ISA's translation unit."""
    found = set(re.findall(r"\bkite::(avx\w*)::", name))
    for m in re.finditer(r"4kite(\d+)(avx\w+)", name):
        found.add(m.group(2)[: int(m.group(1))])
    return found


LEVELS = {None: 0, "vex": 1, "evex": 2}
NAMES = {0: "baseline", 1: "AVX (VEX)", 2: "AVX-512 (EVEX)"}


def namespace_level(name):
    """2 inside kite::avx512*, 1 inside another kite::avx*, None outside."""
    ns = isa_namespaces(name)
    if not ns:
        return None
    return 2 if any(n.startswith("avx512") for n in ns) else 1


def file_level(path):
    """The ISA level of a per-ISA wrapper source (<layer>_cpu_<isa>.cpp,
    conv_int8_vnni_x86_<vnni>.cpp;
    cmake/kite_layers.cmake), None for any other file."""
    m = re.search(r"_(?:cpu|x86)_(\w+)\.(?:cpp|cc|c)(?:\.o)?$", path)
    if not m:
        return None
    isa = m.group(1)
    if isa.startswith("avx512"):
        return 2
    if isa.startswith("avx"):
        return 1
    return 0


def local_levels(binary, readelf):
    """Address -> ISA level of the file-local functions (static functions,
    anonymous namespaces, clang's .omp_outlined. bodies) defined in a per-ISA
    wrapper. The symbol table lists each object's local symbols after an
    STT_FILE symbol naming its source, so the translation unit is known even
    where many units define a local function of the same name."""
    out = subprocess.run([readelf, "-sW", binary], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    if out.returncode != 0:
        return {}
    levels = {}
    cur = None
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(":"):
            continue
        kind, bind = f[3], f[4]
        if kind == "FILE":
            cur = file_level(f[7])
        elif kind == "FUNC" and bind == "LOCAL" and cur is not None:
            levels[int(f[1], 16)] = cur
    return levels


def neutralise_prologues(binary, readelf):
    """clang's -fsanitize=function puts a jump over 6 bytes of type signature
    data at the start of each function. objdump decodes those bytes as
    instructions, and a long bogus instruction can swallow the first real
    ones, so that the stream decodes out of step for a few instructions and
    shows VEX prefixes that are not there. Returns the path of a copy of the
    binary whose signature bytes are NOPs (the caller removes it), or None
    when no function has the prologue."""
    sec = subprocess.run([readelf, "-SW", binary], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    sym = subprocess.run([readelf, "-sW", binary], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    if sec.returncode != 0 or sym.returncode != 0:
        return None
    ranges = []  # (vaddr, size, file offset) of executable PROGBITS sections
    for line in sec.stdout.splitlines():
        m = re.search(r"\]\s+\S+\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+\S+\s+(\S+)", line)
        if m and "X" in m.group(4):
            ranges.append((int(m.group(1), 16), int(m.group(3), 16), int(m.group(2), 16)))
    starts = set()
    for line in sym.stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[3] == "FUNC" and f[6] != "UND":
            starts.add(int(f[1], 16))
    with open(binary, "rb") as fh:
        data = bytearray(fh.read())
    patched = 0
    for a in starts:
        for va, size, off in ranges:
            if va <= a and a + 8 <= va + size:
                o = off + (a - va)
                if data[o] == 0xEB and data[o + 1] == 0x06:
                    data[o + 2:o + 8] = b"\x90" * 6
                    patched += 1
                break
    if not patched:
        return None
    fd, path = tempfile.mkstemp(prefix="isa_linkage_", suffix=os.path.basename(binary))
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return path


def scan(binary, objdump):
    """Per function (keyed by start address: local functions of the same
    name in different units are different functions): its name, the highest
    encoding it holds, and the functions that call or jump to it."""
    out = subprocess.run([objdump, "-d", "-C", binary],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if out.returncode != 0:
        raise SystemExit("objdump failed: " + out.stderr.strip()[:300])
    head = re.compile(r"^([0-9a-f]+) <(.*)>:$")
    insn = re.compile(r"^\s+([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t?(.*)$")
    target = re.compile(r"^(?:call|jmp)\w*\s+([0-9a-f]+) <(.*)>$")
    level = {}
    names = {}
    callers = {}
    fmt = None
    cur = None
    skip_to = 0
    for line in out.stdout.splitlines():
        if fmt is None and "file format" in line:
            fmt = line.split("file format")[-1].strip()
        m = head.match(line)
        if m:
            cur = int(m.group(1), 16)
            names[cur] = m.group(2)
            level.setdefault(cur, 0)
            skip_to = 0
            continue
        m = insn.match(line)
        if not m or cur is None or not m.group(3).strip():
            # objdump continues a long instruction's bytes on a line of their own
            continue
        addr = int(m.group(1), 16)
        b = m.group(2).split()
        if addr == cur and b == ["eb", "06"]:
            # clang's -fsanitize=function prologue: a jump over 6 bytes of
            # type signature data, which objdump decodes as instructions
            skip_to = cur + 8
            continue
        if addr < skip_to:
            continue
        i = 0
        while i < len(b) and b[i] in LEGACY_PREFIXES:
            i += 1
        if i < len(b):
            kind = "evex" if b[i] == "62" else "vex" if b[i] in ("c4", "c5") else None
            level[cur] = max(level[cur], LEVELS[kind])
        t = target.match(m.group(3).strip())
        if t and "+0x" not in t.group(2) and "@plt" not in t.group(2):
            dest = int(t.group(1), 16)
            if dest != cur:
                callers.setdefault(dest, set()).add(cur)
    return fmt, level, names, callers


def allowed_levels(level, names, callers, local):
    """The highest ISA level each function may use: its namespace's, or for
    code outside the ISA namespaces (std:: copies, the core) the lowest level
    of any function that calls it directly (a fixpoint over the call graph).
    Code without a direct caller (reached through a pointer, a vtable, an
    OpenMP outlined body) must run anywhere: baseline."""
    allowed = {}
    free = []
    for f in level:
        ns = local.get(f)
        if ns is None:
            ns = namespace_level(names[f])
        if ns is None:
            allowed[f] = 0 if not callers.get(f) else 2
            free.append(f)
        else:
            allowed[f] = ns
    changed = True
    while changed:
        changed = False
        for f in free:
            cs = callers.get(f)
            if not cs:
                continue
            lo = min(allowed.get(c, 0) for c in cs)
            if lo < allowed[f]:
                allowed[f] = lo
                changed = True
    return allowed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--objdump", default="objdump")
    ap.add_argument("--readelf", default="readelf")
    ap.add_argument("--allow", action="append", default=[], help="regex of functions allowed any encoding")
    args = ap.parse_args()
    patched = neutralise_prologues(args.binary, args.readelf)
    try:
        fmt, level, names, callers = scan(patched or args.binary, args.objdump)
    finally:
        if patched:
            os.unlink(patched)
    if fmt is None or "x86-64" not in fmt:
        print("not an x86-64 binary (%s): nothing to check" % fmt)
        return 77
    allow = [re.compile(a) for a in args.allow]
    local = local_levels(args.binary, args.readelf)
    allowed = allowed_levels(level, names, callers, local)
    bad = []
    for f in sorted(level, key=lambda a: names[a]):
        if level[f] <= allowed[f] or any(a.search(names[f]) for a in allow):
            continue
        low = sorted(names[c] for c in callers.get(f, ()) if allowed.get(c, 0) < level[f])
        why = "called from %s" % ", ".join(c[:100] for c in low[:3]) if low else "no direct caller (runs anywhere)"
        bad.append("%s @%x: %s code, may run at %s level; %s"
                   % (names[f][:160], f, NAMES[level[f]], NAMES[allowed[f]], why))
    if bad:
        print("%d function(s) can execute instructions above the CPU level their callers checked for "
              "(a merged inline copy from a higher-ISA translation unit?):" % len(bad))
        for line in bad:
            print("  " + line)
        return 1
    n = sum(1 for f in level if level[f] > 0)
    print("%s: %d functions use VEX/EVEX code, each only where its ISA level was checked" % (args.binary, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
