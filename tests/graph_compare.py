"""Comparing a GPU backend's graph outputs with the CPU's (shared by
tests/opencl/graphs.py and usable by tests/vulkan/run_vulkan_graphs.py:
sys.path.insert(0, <tests dir>); import graph_compare).

Dense tensors (every output that is not a detection list, and the blobs
feeding the detection layers):
  - fp32: max |gpu - cpu| <= 1e-3 of the CPU tensor's range
  - fp16 storage / arithmetic: cosine similarity >= 0.999

Detection lists (DetectionOutput, Yolov3DetectionOutput, YoloDetectionOutput:
rows of label, score, xmin, ymin, xmax, ymax) are discrete: a box exists or
not depending on a score threshold and on NMS, so they are not compared
element by element. Boxes are matched greedily, highest CPU score first,
with a GPU box of the same label, IoU >= 0.9 and |score difference| <=
score_tol. A box left unmatched on either side is allowed only
  - when its score is within `margin` of the layer's confidence threshold
    (it may fall on the other side of the threshold with a slightly
    different score), or
  - when NMS may have removed it on the other side: the other side has a box
    scoring at least as high (within score_tol) whose IoU with it is within
    0.05 of the NMS threshold, or above the threshold with a score within
    score_tol (the two boxes' order may swap);
any other unmatched box fails.
"""

import numpy as np

# per type: (confidence_threshold param id, its default, nms_threshold param id, its default)
DETECTION_TYPES = {
    "DetectionOutput": (4, 0.5, 1, 0.05),
    "Yolov3DetectionOutput": (2, 0.01, 3, 0.45),
    "YoloDetectionOutput": (2, 0.01, 3, 0.45),
}
NMS_IOU_MARGIN = 0.05

# tolerances for detection lists: (score_tol, margin) for fp32 / fp16 runs
DETECTION_TOL = {False: (1e-3, 1e-3), True: (1e-2, 1e-2)}


def parse_layers(param):
    """[(type, name, bottoms, tops, params dict id -> str)] of an ncnn text .param"""
    layers = []
    with open(param) as f:
        lines = [l for l in f.readlines() if l.strip()]
    lines = lines[2:2 + int(lines[1].split()[0])]  # the declared layer count, as ncnn reads it
    for line in lines:
        t = line.split()
        if len(t) < 4:
            continue
        nb, nt = int(t[2]), int(t[3])
        params = {}
        for kv in t[4 + nb + nt:]:
            k, _, v = kv.partition("=")
            params[k] = v
        layers.append((t[0], t[1], t[4:4 + nb], t[4 + nb:4 + nb + nt], params))
    return layers


def detection_blobs(layers):
    """(dict top blob -> (confidence threshold, NMS threshold) for every
    detection layer's output, list of the blobs feeding detection layers)"""
    outs, feeds = {}, []
    for typ, _, bottoms, tops, params in layers:
        if typ not in DETECTION_TYPES:
            continue
        tid, tdef, nid, ndef = DETECTION_TYPES[typ]
        thr = float(params.get(str(tid), tdef))
        nms = float(params.get(str(nid), ndef))
        for t in tops:
            outs[t] = (thr, nms)
        feeds += [b for b in bottoms if b not in feeds]
    return outs, feeds


def compared_blobs(layers):
    """(first Input's blob, blobs to save and compare, detection_blobs()'s
    dict of detection outputs): the graph's outputs, the blobs feeding
    detection layers and the first input of its last layer (a final Softmax
    over one element, as vision_transformer's, says nothing)"""
    input_blob = None
    produced, consumed = [], set()
    for typ, _, bottoms, tops, _ in layers:
        if typ == "Input" and input_blob is None:
            input_blob = tops[0]
        consumed.update(bottoms)
        produced += tops
    detections, det_inputs = detection_blobs(layers)
    outputs = [b for b in produced if b not in consumed]
    for b in det_inputs + layers[-1][2][:1]:
        if b not in outputs and b != input_blob:
            outputs.append(b)
    return input_blob, outputs, detections


def compare_blob(blob, gpu, cpu, fp16, detections):
    """(ok, description): a detection output (a key of `detections`) by
    matching boxes, anything else by compare_dense"""
    # a detection list is [n, 6] (or empty); mobilenet_yolo's YoloDetectionOutput gives
    # a [125, 13, 13] blob instead (as ncnn's does): compared as dense values
    if blob in detections and np.ndim(cpu) < 3:
        tol, margin = DETECTION_TOL[bool(fp16)]
        thr, nms = detections[blob]
        return compare_detections(gpu, cpu, thr, tol, margin, nms)
    return compare_dense(gpu, cpu, bool(fp16))


def compare_dense(gpu, cpu, fp16):
    """(ok, description) for two arrays of one blob"""
    a = np.asarray(gpu, dtype=np.float64).ravel()
    b = np.asarray(cpu, dtype=np.float64).ravel()
    if a.shape != b.shape:
        return False, "shape %s vs %s" % (a.shape, b.shape)
    if b.size == 0:
        return True, "empty"
    if not np.all(np.isfinite(a)):
        return False, "non-finite values"
    rng = float(b.max() - b.min()) or max(1.0, float(np.abs(b).max()))
    diff = float(np.abs(a - b).max())
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    cos = float(np.dot(a, b) / (na * nb)) if na > 0 and nb > 0 else (1.0 if na == nb else 0.0)
    ok = cos >= 0.999 if fp16 else diff <= 1e-3 * rng
    return ok, "max|diff|=%.3g (%.2g of range) cosine=%.6f" % (diff, diff / rng, cos)


def iou(p, q):
    w = min(p[2], q[2]) - max(p[0], q[0])
    h = min(p[3], q[3]) - max(p[1], q[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter
    return inter / union if union > 0 else 0.0


def nms_may_remove(u, other, nms_threshold, score_tol):
    """whether NMS on the other side may have suppressed box u"""
    if nms_threshold is None:
        return False
    for v in other:
        if v[1] < u[1] - score_tol:
            continue
        o = iou(u[2:], v[2:])
        if abs(o - nms_threshold) <= NMS_IOU_MARGIN or (o > nms_threshold and abs(u[1] - v[1]) <= score_tol):
            return True
    return False


def compare_detections(gpu, cpu, threshold, score_tol, margin, nms_threshold=None, min_iou=0.9):
    """(ok, description) for two detection lists (rows label, score, box)"""
    a = np.asarray(gpu, dtype=np.float64).reshape(-1, 6)
    b = np.asarray(cpu, dtype=np.float64).reshape(-1, 6)
    used = [False] * len(a)
    unmatched_cpu = []
    for i in np.argsort(-b[:, 1], kind="stable"):
        best, best_iou = -1, min_iou
        for j in range(len(a)):
            if used[j] or a[j, 0] != b[i, 0] or abs(a[j, 1] - b[i, 1]) > score_tol:
                continue
            v = iou(a[j, 2:], b[i, 2:])
            if v >= best_iou:
                best, best_iou = j, v
        if best >= 0:
            used[best] = True
        else:
            unmatched_cpu.append(b[i])
    unmatched_gpu = [a[j] for j in range(len(a)) if not used[j]]
    near = lambda r: abs(r[1] - threshold) <= margin
    bad_cpu = [r for r in unmatched_cpu if not near(r) and not nms_may_remove(r, a, nms_threshold, score_tol)]
    bad_gpu = [r for r in unmatched_gpu if not near(r) and not nms_may_remove(r, b, nms_threshold, score_tol)]
    bad = bad_cpu + bad_gpu
    desc = "%d vs %d boxes, %d matched, unmatched cpu %d / gpu %d (%d near the threshold %.3g or NMS)" % (
        len(a), len(b), sum(used), len(unmatched_cpu), len(unmatched_gpu),
        len(unmatched_cpu) + len(unmatched_gpu) - len(bad), threshold)
    if bad:
        desc += "; e.g. unmatched box label %g score %.4f" % (bad[0][0], bad[0][1])
    return not bad, desc
