#!/usr/bin/env python3
"""kitecheck on shared ncnn graphs (random weights, small shapes):

 - every layer on every backend this machine has agrees with the reference
   (`all layers agree`, exit 0, a check line per layer and backend)
 - KITECHECK_BREAK=<layer>@vulkan / @opencl (kitecheck's own hook: that
   layer's output on that backend is perturbed as a broken kernel's would
   be) makes it end with `first bad layer: <layer> on <backend>`, exit 1
 - a missing file / bad argument: exit 2 and one message

  kitecheck_test.py --kitecheck BIN --models DIR
"""
import argparse
import os
import re
import subprocess
import sys

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    sys.stdout.flush()
    if not cond:
        FAILS.append(what)


def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(args, capture_output=True, text=True, env=e)
    return r.returncode, r.stdout, r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kitecheck", required=True)
    ap.add_argument("--models", required=True)
    a = ap.parse_args()
    kc = a.kitecheck
    # (graph, input shape, layer to break or None); squeezenet_int8: int8 layers,
    # int8-stored blobs between them
    graphs = [("squeezenet", "[27,27,3]", "fire3/expand3x3"), ("mobilenet_v2", "[32,32,3]", "conv6_1/linear"),
              ("squeezenet_int8", "[27,27,3]", None)]
    for name, shape, victim in graphs:
        param = os.path.join(a.models, name + ".param")
        if not os.path.isfile(param):
            print("skip %s: %s missing" % (name, param))
            continue
        rc, out, err = run([kc, param, "random", "shape=" + shape])
        lines = [l for l in out.splitlines() if l.startswith("check ")]
        fmt = all(re.match(r"^check \d+ \S+ \S+ \S+ max_rel=\S+ cosine=\S+( ran_on=cpu)?( ref_nonfinite)?( int8)?$", l) for l in lines)
        backends = sorted(set(l.split()[4] for l in lines))
        check(rc == 0 and out.rstrip().endswith("all layers agree") and fmt and len(lines) > 20,
              "%s: all layers agree on %s (%d check lines, exit %d) %s" % (name, ",".join(backends), len(lines), rc, err.strip()[-200:]))
        for gpu in ("vulkan", "opencl"):
            if gpu not in backends or victim is None:
                continue
            ran_gpu = [l for l in lines if l.split()[4] == gpu and "ran_on=cpu" not in l]
            check(len(ran_gpu) > 0, "%s: layers ran on %s (%d)" % (name, gpu, len(ran_gpu)))
            rc, out, err = run([kc, param, "random", "shape=" + shape, "backends=reference," + gpu],
                               {"KITECHECK_BREAK": victim + "@" + gpu})
            last = out.rstrip().splitlines()[-1] if out.strip() else ""
            check(rc == 1 and last == "first bad layer: %s on %s" % (victim, gpu),
                  "%s: broken %s on %s is named: '%s'" % (name, victim, gpu, last))
    rc, out, err = run([kc, "/nonexistent.param", "random"])
    check(rc == 1 and "'/nonexistent.param': No such file or directory" in err and len(err.strip().splitlines()) == 1,
          "missing param: exit 1, '%s'" % err.strip())
    rc, out, err = run([kc, os.path.join(a.models, "squeezenet.param"), "random", "backends=cpu,tpu"])
    check(rc == 2 and "tpu" in err, "unknown backend: exit 2, '%s'" % err.strip())
    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
