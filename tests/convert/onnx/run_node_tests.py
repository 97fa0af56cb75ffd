#!/usr/bin/env python3
"""ONNX backend node tests through onnx2kite + kiterun.

The test cases are the ONNX package's own node tests: onnx.backend.test.case.node
(the definitions from which onnx/backend/test/data/node/*/model.onnx and
test_data_set_*/*.pb are generated; recent pip wheels no longer ship the
generated files, so the cases are taken from their definitions directly).

Every case whose operators all appear in `onnx2kite --ops` is converted and
run; the rest are counted as not covered. A case passes when kite's outputs
match the expected outputs (|diff| <= max(atol, 1e-4 * output range) +
rtol * |expected|, rtol >= 1e-3). A case onnx2kite rejects with a clear error
(an attribute, dtype or shape form kite does not handle) is a skip with that
reason; a wrong number or a kiterun failure is a failure (exit status 1).

usage: run_node_tests.py ONNX2KITE KITERUN WORKDIR [--filter SUBSTR] [--verbose]
"""
import collections
import json
import os
import subprocess
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kite_npy  # noqa: E402

warnings.filterwarnings("ignore")


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    onnx2kite, kiterun, work = sys.argv[1:4]
    filt = None
    if "--filter" in sys.argv:
        filt = sys.argv[sys.argv.index("--filter") + 1]
    verbose = "--verbose" in sys.argv
    import onnx
    import onnx.numpy_helper
    from onnx.backend.test.case import node

    ops = subprocess.run([onnx2kite, "--ops"], capture_output=True, text=True, check=True).stdout.split()
    supported = set(ops)
    cases = node.collect_testcases(None)
    os.makedirs(work, exist_ok=True)
    stats = collections.Counter()
    per_op = collections.defaultdict(collections.Counter)
    skips = collections.Counter()
    failures = []
    for case in cases:
        if filt and filt not in case.name:
            continue
        model = case.model
        optypes = [n.op_type for n in model.graph.node]
        domains = {n.domain for n in model.graph.node}
        if not optypes or not set(optypes) <= supported or not domains <= {"", "ai.onnx"}:
            stats["not covered"] += 1
            continue
        primary = optypes[-1] if len(set(optypes)) > 1 else optypes[0]
        d = os.path.join(work, case.name)
        os.makedirs(d, exist_ok=True)
        mpath = os.path.join(d, "model.onnx")
        with open(mpath, "wb") as f:
            f.write(model.SerializeToString())
        inputs_names = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
        outputs_names = [o.name for o in model.graph.output]
        for k, (ins, outs) in enumerate(case.data_sets):
            tag = case.name + ("" if k == 0 else "#%d" % k)
            ins = [np.asarray(x) for x in ins]
            outs = [np.asarray(x) for x in outs]
            if any(x.dtype.kind not in "f" for x in ins) or any(x.dtype.kind not in "fiub" for x in outs) \
                    or any(x.dtype == np.float16 for x in ins):
                skips["non-float32 input"] += 1
                stats["skip"] += 1
                per_op[primary]["skip"] += 1
                continue
            if any(x.size == 0 for x in ins):
                skips["empty tensor"] += 1
                stats["skip"] += 1
                per_op[primary]["skip"] += 1
                continue
            shapes = ["inputshape=%s:[%s]" % (n, ",".join(str(s) for s in x.shape)) for n, x in zip(inputs_names, ins) if x.ndim > 0]
            param, binf = os.path.join(d, "m.param"), os.path.join(d, "m.bin")
            rc, err, _ = kite_npy.convert(onnx2kite, mpath, param, binf, shapes)
            run_ins = dict(zip(inputs_names, ins))
            if rc != 0 and "must be a constant" in err and len(ins) > 1:
                # kite layers take weights, scales, pads... from the model:
                # give every input but the first as an initializer
                m2 = onnx.ModelProto()
                m2.CopyFrom(model)
                consts = set(inputs_names[1:])
                keep = [vi for vi in m2.graph.input if vi.name not in consts]
                del m2.graph.input[:]
                m2.graph.input.extend(keep)
                for n, x in zip(inputs_names[1:], ins[1:]):
                    m2.graph.initializer.append(onnx.numpy_helper.from_array(x, n))
                mpath2 = os.path.join(d, "model_w%d.onnx" % k)
                with open(mpath2, "wb") as f:
                    f.write(m2.SerializeToString())
                rc, err, _ = kite_npy.convert(onnx2kite, mpath2, param, binf, shapes[:1])
                run_ins = {inputs_names[0]: ins[0]}
                stats["weights as initializers"] += 1
            if rc != 0:
                reason = err.split(".onnx: ", 1)[-1] if err else "exit %d" % rc
                if "Segmentation" in err or rc < 0:
                    failures.append((tag, "onnx2kite crashed: " + err))
                    stats["fail"] += 1
                    per_op[primary]["fail"] += 1
                    continue
                skips["rejected: " + reason[:110]] += 1
                stats["skip"] += 1
                per_op[primary]["skip"] += 1
                if verbose:
                    print("SKIP %s: %s" % (tag, reason))
                continue
            err, got = kite_npy.run_kite(kiterun, param, binf, run_ins, outputs_names, d)
            if err:
                failures.append((tag, "kiterun: " + err[:300]))
                stats["fail"] += 1
                per_op[primary]["fail"] += 1
                continue
            ok = True
            why = ""
            for name, exp in zip(outputs_names, outs):
                g = got[name]
                if g.size != exp.size:
                    ok, why = False, "%s: %d values, expected shape %s" % (name, g.size, exp.shape)
                    break
                diff, rng = kite_npy.max_diff(exp, g)
                atol = max(case.atol, 1e-4 * max(rng, 1e-30), 1e-6)
                rtol = max(case.rtol, 1e-3)
                e = exp.astype(np.float64).reshape(-1)
                with np.errstate(invalid="ignore"):
                    bad = np.abs(e - g) > atol + rtol * np.abs(e)
                bad &= ~(np.isnan(e) & np.isnan(g)) & ~(np.isinf(e) & (e == g))
                if bad.any():
                    ok, why = False, "%s: max diff %.3g (range %.3g)" % (name, diff, rng)
                    break
            if ok:
                stats["pass"] += 1
                per_op[primary]["pass"] += 1
                if verbose:
                    print("PASS", tag)
            else:
                failures.append((tag, why))
                stats["fail"] += 1
                per_op[primary]["fail"] += 1
    print("ONNX node tests: %d pass, %d fail, %d skipped, %d not covered (ops onnx2kite lacks); "
          "%d runs had their non-first inputs given as initializers" %
          (stats["pass"], stats["fail"], stats["skip"], stats["not covered"], stats["weights as initializers"]))
    print("per op (pass/fail/skip):")
    for op in sorted(per_op):
        c = per_op[op]
        print("  %-24s %3d %3d %3d" % (op, c["pass"], c["fail"], c["skip"]))
    if skips:
        print("skip reasons:")
        for r, n in skips.most_common():
            print("  %4d  %s" % (n, r))
    for tag, why in failures:
        print("FAIL %s: %s" % (tag, why))
    with open(os.path.join(work, "summary.json"), "w") as f:
        json.dump({"stats": stats, "per_op": per_op, "skips": skips, "failures": failures}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
