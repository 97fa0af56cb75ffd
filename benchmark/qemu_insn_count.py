#!/usr/bin/env python3
"""Dynamic instruction count of a program run under qemu-user, without a TCG
plugin (Debian's qemu-user 7.2 is built without plugin support).

  python3 benchmark/qemu_insn_count.py [--qemu qemu-aarch64] [--sysroot /usr/aarch64-linux-gnu]
          [--cpu max] -- PROGRAM ARGS...

qemu logs every translated block with its guest instructions (-d in_asm) and
every execution of a block (-d exec, with block chaining off so that no
execution goes unlogged); this script reads the log through a pipe and adds
up, per executed block, the instruction count of its latest translation.
Prints "instructions N" (and the number of block executions). Run the
program single-threaded: the log of several threads interleaves.

For the forward pass of a graph: count `kiterun ... loop=1` and `loop=2`;
the difference is one forward pass (benchmark/arm_insn_counts.sh does that).
"""

import argparse
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qemu", default="qemu-aarch64")
    ap.add_argument("--sysroot", default="/usr/aarch64-linux-gnu")
    ap.add_argument("--cpu", default="max")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        ap.error("no program given")
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "qemu.log")
        os.mkfifo(fifo)
        proc = subprocess.Popen([args.qemu, "-L", args.sysroot, "-cpu", args.cpu, "-d", "in_asm,exec,nochain", "-D", fifo] + cmd,
                                stdout=subprocess.DEVNULL)
        sizes = {}   # block start pc (hex string) -> guest instructions
        total = 0
        execs = 0
        current = None  # pc of the block being listed, and its count
        count = 0
        with open(fifo, "r", errors="replace") as log:
            for line in log:
                if line.startswith("Trace "):
                    # Trace 0: 0xhost [flags/pc/.../...]
                    b = line.find("[")
                    pc = line[b + 1:].split("/", 2)[1].lstrip("0")
                    total += sizes.get(pc, 0)
                    execs += 1
                elif line.startswith("IN:"):
                    current, count = "", 0
                elif current is not None:
                    if line.startswith("0x"):
                        if current == "":
                            current = line[2:line.index(":")].lstrip("0")
                        count += 1
                    else:
                        if current:
                            sizes[current] = count
                        current = None
        rc = proc.wait()
    if rc != 0:
        print("the program failed (exit status %d)" % rc, file=sys.stderr)
        return 1
    print("instructions %d" % total)
    print("block executions %d" % execs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
