#!/usr/bin/env python3
"""Checks of tests/graph_compare.py's rules on made-up outputs (no device)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import graph_compare as gc  # noqa: E402


def main():
    rng = np.random.RandomState(7)
    n = 12
    boxes = np.zeros((n, 6))
    boxes[:, 0] = rng.randint(1, 4, n)
    boxes[:, 1] = np.linspace(0.95, 0.305, n)  # threshold 0.3: the last one is near it
    xy = rng.uniform(0, 0.7, (n, 2))
    boxes[:, 2:4] = xy
    boxes[:, 4:6] = xy + rng.uniform(0.1, 0.3, (n, 2))
    thr, tol, margin = 0.3, 1e-2, 1e-2
    checks = []
    shuffled = boxes[rng.permutation(n)]
    checks.append(("same boxes in another order", gc.compare_detections(shuffled, boxes, thr, tol, margin)[0], True))
    noisy = boxes.copy()
    noisy[:, 1] += 0.004
    noisy[:, 2:] += 0.002
    checks.append(("scores and corners slightly off", gc.compare_detections(noisy, boxes, thr, tol, margin)[0], True))
    checks.append(("box near the threshold missing on the GPU", gc.compare_detections(boxes[:-1], boxes, thr, tol, margin)[0], True))
    checks.append(("box near the threshold only on the GPU", gc.compare_detections(boxes, boxes[:-1], thr, tol, margin)[0], True))
    checks.append(("confident box missing", gc.compare_detections(boxes[1:], boxes, thr, tol, margin)[0], False))
    moved = boxes.copy()
    moved[0, 2:] += 0.05
    checks.append(("box moved (IoU < 0.9)", gc.compare_detections(moved, boxes, thr, tol, margin)[0], False))
    relabeled = boxes.copy()
    relabeled[0, 0] += 1
    checks.append(("label changed", gc.compare_detections(relabeled, boxes, thr, tol, margin)[0], False))
    rescored = boxes.copy()
    rescored[0, 1] -= 0.05
    checks.append(("score off by 0.05", gc.compare_detections(rescored, boxes, thr, tol, margin)[0], False))
    # NMS (threshold 0.45): B overlaps A by IoU ~0.46, kept on the CPU, suppressed on the GPU
    pa = np.array([[1, 0.9, 0.0, 0.0, 1.0, 1.0]])
    pb = np.array([[1, 0.6, 0.37, 0.0, 1.37, 1.0]])
    pair = np.vstack([pa, pb])
    o = gc.iou(pa[0, 2:], pb[0, 2:])
    checks.append(("NMS borderline box (IoU %.3f) missing" % o, gc.compare_detections(pa, pair, thr, tol, margin, 0.45)[0], True))
    checks.append(("same without the NMS rule", gc.compare_detections(pa, pair, thr, tol, margin)[0], False))
    far = np.array([[1, 0.6, 0.8, 0.0, 1.8, 1.0]])  # IoU ~0.11: NMS cannot remove it
    checks.append(("box far from others missing", gc.compare_detections(pa, np.vstack([pa, far]), thr, tol, margin, 0.45)[0], False))
    checks.append(("both empty", gc.compare_detections(np.zeros((0, 6)), np.zeros((0, 6)), thr, tol, margin)[0], True))
    x = rng.uniform(-1, 1, 1000)
    checks.append(("dense fp32 within 1e-3 of range", gc.compare_dense(x + 1e-4, x, False)[0], True))
    checks.append(("dense fp32 off by 1e-2", gc.compare_dense(x + 1e-2 * (x > 0), x, False)[0], False))
    checks.append(("dense fp16 cosine", gc.compare_dense(x + rng.normal(0, 1e-2, x.size), x, True)[0], True))
    checks.append(("dense fp16 unrelated", gc.compare_dense(rng.uniform(-1, 1, x.size), x, True)[0], False))
    checks.append(("dense NaN", gc.compare_dense(np.full(x.size, np.nan), x, True)[0], False))
    bad = [c for c in checks if c[1] != c[2]]
    for name, got, want in checks:
        print("%-45s %s (expected %s)" % (name, "pass" if got else "fail", "pass" if want else "fail"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
