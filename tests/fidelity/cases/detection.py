# Detection post-processing and ROI layers (PriorBox, DetectionOutput,
# YoloDetectionOutput, Yolov3DetectionOutput, Proposal, ROIPooling, ROIAlign,
# PSROIPooling). PSROIAlign is a kite extension with no ncnn counterpart: it is
# checked by tests/layer/test_psroialign.cpp instead.
#
# Input generation notes (the uniform generator is enough, with care):
# - DetectionOutput: ncnn skips decoding priors whose background score is
#   >= 1 - confidence_threshold and leaves their boxes uninitialised, which is
#   harmless for softmax confidences but not for arbitrary ones. The cases keep
#   every confidence below 1 - threshold (input_ranges) so no prior is skipped
#   and real classes still pass the threshold. Ideally the confidences would be
#   softmax-normalised per prior and the priorbox rows would hold ordered boxes
#   (xmin < xmax, ymin < ymax) and variances: an "input_gen" of
#   {"<input index>": "softmax_rows:<num_class>"} / {"<input index>": "priorbox"}
#   would do that; uniform [0, 1] boxes are still deterministic for both.
# - Yolo layers: random logits; continuous inputs avoid exact score ties (the
#   order of tied scores depends on float rounding).
# - Proposal: im_info is (height, width, scale); a constant im_info (lo == hi)
#   with min_size 0 keeps proposals meaningful. ncnn fails when no proposal
#   survives, so the cases never filter everything.
# - ROIAlign: ncnn reads out of bounds when a sample falls past the last
#   row/column, so the ROIs stay inside the feature map (scaled coordinates in
#   [0.6, size - 1.6]). ROIPooling/PSROIPooling clip safely; any ROI is fine.
# - ROI inputs: the 4 ROI values are drawn independently, so x2 < x1 happens;
#   the numeric suffixes of the ROI case names were chosen so that the seeded
#   draw (default --seed 0) gives an ordered ROI of useful size. A generator
#   option "input_gen": {"1": "roi"} (sort each (x1, x2), (y1, y2) pair) would
#   make that independent of the seed.

CASES = [
    # ---------------- PriorBox ----------------
    {
        "name": "priorbox_caffe_min_max_ar_flip",
        "type": "PriorBox",
        "params": "-23300=2,30.0,45.5 -23301=2,60.0,80.0 -23302=2,2.0,3.0 9=-233 10=-233 13=0.5",
        "inputs": [[5, 4, 8], [300, 300, 3]],
    },
    {
        "name": "priorbox_noflip_clip_fixed_step_variances",
        "type": "PriorBox",
        "params": "-23300=1,30.0 -23302=2,2.0,0.5 3=0.2 4=0.15 5=0.3 6=0.25 7=0 8=1 9=100 10=80 11=16.0 12=20.0 13=0.5",
        "inputs": [[7, 5, 2], [100, 80, 3]],
    },
    {
        "name": "priorbox_min_only_image_blob_odd",
        "type": "PriorBox",
        "params": "-23300=3,16.0,24.0,40.0 9=-233 10=-233 13=0.5",
        "inputs": [[9, 7, 4], [301, 299, 3]],
    },
    {
        "name": "priorbox_mmdetection_step_center",
        "type": "PriorBox",
        "params": "-23300=1,32.0 -23301=1,64.0 -23302=1,2.0 9=-233 10=-233 13=0.5 14=1 15=1",
        "inputs": [[6, 5, 2], [301, 299, 3]],
    },
    {
        "name": "priorbox_mxnet_style",
        "type": "PriorBox",
        "params": "-23300=3,0.2,0.35,0.5 -23302=3,1.0,2.0,0.5 9=-233 10=-233 13=0.5",
        "inputs": [[5, 3, 4]],
    },
    {
        "name": "priorbox_mxnet_style_clip_step",
        "type": "PriorBox",
        "params": "-23300=2,0.6,0.9 -23302=2,1.0,3.0 8=1 9=-233 10=-233 11=0.25 12=0.3 13=0.5",
        "inputs": [[4, 3, 1]],
    },
    # ---------------- DetectionOutput ----------------
    # 40 priors; location 4*40, confidence 40 x num_class (class fastest), priorbox (160, 2)
    {
        "name": "detout_caffe_3class",
        "type": "DetectionOutput",
        "params": "0=3 1=0.45 2=300 3=100 4=0.3",
        "inputs": [[160], [120], [160, 2]],
        "input_ranges": [[-0.5, 0.5], [0, 0.69], [0, 1]],
    },
    {
        "name": "detout_caffe_5class_topk",
        "type": "DetectionOutput",
        "params": "0=5 1=0.3 2=6 3=10 4=0.2",
        "inputs": [[160], [200], [160, 2]],
        "input_ranges": [[-0.5, 0.5], [0, 0.79], [0, 1]],
    },
    {
        "name": "detout_caffe_2d_confidence_loose_nms",
        "type": "DetectionOutput",
        "params": "0=4 1=0.7 2=50 3=30 4=0.25",
        "inputs": [[160], [4, 40], [160, 2]],
        "input_ranges": [[-1, 1], [0, 0.74], [0, 1]],
    },
    {
        "name": "detout_mxnet_style",
        "type": "DetectionOutput",
        "params": "0=-233 1=0.45 2=300 3=100 4=0.3 5=0.1 6=0.1 7=0.2 8=0.2",
        "inputs": [[160], [40, 3], [4, 40]],
        "input_ranges": [[-0.5, 0.5], [0, 0.69], [0, 1]],
    },
    {
        "name": "detout_no_detections_empty",
        "type": "DetectionOutput",
        "params": "0=3 4=0.95",
        "inputs": [[160], [120], [160, 2]],
        "input_ranges": [[-0.5, 0.5], [0, 0.04], [0, 1]],
    },
    # ---------------- Yolov3DetectionOutput ----------------
    {
        "name": "yolov3_two_scales",
        "type": "Yolov3DetectionOutput",
        "params": "0=2 1=3 2=0.3 3=0.45 -23304=12,10.0,14.0,23.0,27.0,37.0,58.0,81.0,82.0,135.0,169.0,344.0,319.0 "
                  "-23305=6,3.0,4.0,5.0,0.0,1.0,2.0 -23306=2,32.0,16.0",
        "inputs": [[7, 6, 21], [13, 11, 21]],
        "input_range": [-3, 3],
    },
    {
        "name": "yolov3_one_scale_many_classes",
        "type": "Yolov3DetectionOutput",
        "params": "0=7 1=2 2=0.5 3=0.3 -23304=4,20.0,30.0,60.0,50.0 -23305=2,1.0,0.0 -23306=1,16.0",
        "inputs": [[5, 5, 24]],
        "input_range": [-3, 3],
    },
    {
        "name": "yolov3_three_scales",
        "type": "Yolov3DetectionOutput",
        "params": "0=1 1=2 2=0.6 3=0.45 -23304=6,10.0,13.0,30.0,61.0,116.0,90.0 "
                  "-23305=6,2.0,1.0,1.0,0.0,0.0,2.0 -23306=3,32.0,16.0,8.0",
        "inputs": [[3, 3, 12], [6, 6, 12], [12, 12, 12]],
        "input_range": [-2, 2],
    },
    {
        # saturated logits, as random weights give (yolo-fastest-1.1): many
        # confidences tie at 1.0 and boxes degenerate (exp overflow to inf, zero
        # widths), so NMS depends on the last bit of every corner; ncnn's x86
        # build rounds the corners its own way (reciprocals, fused centre)
        "name": "yolov3_saturated_logits",
        "type": "Yolov3DetectionOutput",
        "params": "0=80 1=3 2=0.55 -23304=12,12.0,18.0,37.0,49.0,52.0,132.0,115.0,73.0,119.0,199.0,242.0,238.0 "
                  "-23305=6,3.0,4.0,5.0,0.0,1.0,2.0 -23306=2,32.0,16.0",
        "inputs": [[10, 10, 255], [20, 20, 255]],
        "input_range": [-120, 120],
    },
    {
        "name": "yolov3_no_detections_empty",
        "type": "Yolov3DetectionOutput",
        "params": "0=2 1=1 2=0.99 -23304=2,10.0,14.0 -23305=1,0.0 -23306=1,32.0",
        "inputs": [[4, 3, 7]],
        "input_range": [-1, 1],
    },
    # ---------------- YoloDetectionOutput (YOLOv2 region, in place) ----------------
    {
        "name": "yolov2_region",
        "type": "YoloDetectionOutput",
        "params": "0=3 1=2 2=0.2 3=0.45 -23304=4,1.08,1.19,3.42,4.41",
        "inputs": [[9, 7, 16]],
        "input_range": [-3, 3],
    },
    {
        "name": "yolov2_region_5box_default_thresholds",
        "type": "YoloDetectionOutput",
        "params": "0=2 1=5 -23304=10,0.57,0.68,1.87,2.06,3.34,5.47,7.88,3.53,9.77,9.17",
        "inputs": [[6, 5, 35]],
        "input_range": [-2, 2],
    },
    {
        # no detections: ncnn's output is the input with class channels softmaxed
        "name": "yolov2_no_detections_softmaxed_input",
        "type": "YoloDetectionOutput",
        "params": "0=2 1=1 2=0.999 -23304=2,1.0,1.4",
        "inputs": [[4, 3, 7]],
        "input_range": [-1, 1],
    },
    # ---------------- Proposal ----------------
    {
        "name": "proposal_defaults_min_size0",
        "type": "Proposal",
        "params": "5=0",
        "inputs": [[12, 10, 18], [12, 10, 36], [3]],
        "input_ranges": [[0, 1], [-0.5, 0.5], [176, 176]],
        "outputs": 2,
    },
    {
        "name": "proposal_topn_nms",
        "type": "Proposal",
        "params": "0=16 1=16 2=60 3=15 4=0.5 5=0",
        "inputs": [[9, 7, 18], [9, 7, 36], [3]],
        "input_ranges": [[0, 1], [-0.3, 0.3], [128, 128]],
        "outputs": 2,
    },
    {
        "name": "proposal_stride8_base8_one_output",
        "type": "Proposal",
        "params": "0=8 1=8 2=0 3=40 4=0.3 5=0",
        "inputs": [[11, 9, 18], [11, 9, 36], [3]],
        "input_ranges": [[0, 1], [-0.4, 0.4], [90, 90]],
    },
    # ---------------- ROIPooling ----------------
    {
        "name": "roipooling_7x7_scale_1_16_25",
        "type": "ROIPooling",
        "params": "0=7 1=7 2=0.0625",
        "inputs": [[20, 15, 8], [4]],
        "input_ranges": [None, [0, 300]],
    },
    {
        "name": "roipooling_odd_pooled_scale_half_2",
        "type": "ROIPooling",
        "params": "0=3 1=5 2=0.5",
        "inputs": [[13, 11, 3], [4]],
        "input_ranges": [None, [-4, 24]],
    },
    {
        "name": "roipooling_scale1_outside_13",
        "type": "ROIPooling",
        "params": "0=2 1=2 2=1.0",
        "inputs": [[9, 8, 2], [4]],
        "input_ranges": [None, [-3, 12]],
    },
    # ---------------- ROIAlign (ROIs inside the map, see above) ----------------
    {
        "name": "roialign_v0_adaptive_3",
        "type": "ROIAlign",
        "params": "0=4 1=3 2=0.25",
        "inputs": [[16, 12, 4], [4]],
        "input_ranges": [None, [3, 40]],
    },
    {
        "name": "roialign_v0_sampling2_aligned_1",
        "type": "ROIAlign",
        "params": "0=3 1=3 2=0.25 3=2 4=1",
        "inputs": [[16, 12, 3], [4]],
        "input_ranges": [None, [3, 40]],
    },
    {
        "name": "roialign_v1_detectron2_aligned_2",
        "type": "ROIAlign",
        "params": "0=5 1=4 2=0.5 3=0 4=1 5=1",
        "inputs": [[15, 13, 3], [4]],
        "input_ranges": [None, [1.5, 22]],
    },
    {
        "name": "roialign_v1_sampling3_35",
        "type": "ROIAlign",
        "params": "0=2 1=3 2=1.0 3=3 4=0 5=1",
        "inputs": [[11, 9, 2], [4]],
        "input_ranges": [None, [0.6, 7.4]],
    },
    # ---------------- PSROIPooling ----------------
    {
        "name": "psroipooling_3x3_dim4_31",
        "type": "PSROIPooling",
        "params": "0=3 1=3 2=0.0625 3=4",
        "inputs": [[14, 12, 36], [4]],
        "input_ranges": [None, [0, 220]],
    },
    {
        "name": "psroipooling_2x4_dim2_scale1_25",
        "type": "PSROIPooling",
        "params": "0=2 1=4 2=1.0 3=2",
        "inputs": [[10, 9, 16], [4]],
        "input_ranges": [None, [-2, 11]],
    },
]
