# Fidelity cases for the shape / data-movement layers (Concat, Slice, Crop,
# Padding, Flatten, Reshape, Permute, ShuffleChannel, Interp, PixelShuffle,
# Reorg, Tile, ExpandDims, Squeeze, MemoryData, DeepCopy, Cast,
# CumulativeSum). Shapes are [w], [w,h], [w,h,c] or [w,h,d,c].
# Only cases on which ncnn itself is well defined are listed (for example
# ncnn reads out of bounds for reflect padding wider than the blob, or bicubic
# on fewer than 4 pixels); kite rejects or defines those, see the gtests.

CASES = []


def _add(name, type_, params, inputs, outputs=1, **kw):
    c = {"name": name, "type": type_, "params": params, "inputs": inputs, "outputs": outputs}
    c.update(kw)
    CASES.append(c)


# shapes per dims, odd sizes
_SHAPES = {
    1: [7],
    2: [5, 3],
    3: [5, 3, 4],
    4: [3, 5, 2, 3],
}


def _with(shape, axis_from_outer, size):
    s = list(shape)
    s[len(s) - 1 - axis_from_outer] = size
    return s


# ---- Concat: every axis of every dims, positive and negative, 2 and 3 inputs
for dims, shp in _SHAPES.items():
    for axis in range(dims):
        ins = [_with(shp, axis, 2), _with(shp, axis, 3), _with(shp, axis, 1)]
        _add("concat_d%d_a%d" % (dims, axis), "Concat", "0=%d" % axis, ins)
        _add("concat_d%d_a%d_neg" % (dims, axis), "Concat", "0=%d" % (axis - dims), ins[:2])

# ---- Slice: explicit sizes, -233 even split, indices, negative axes
for dims, shp in _SHAPES.items():
    for axis in range(dims):
        s = _with(shp, axis, 7)
        _add("slice_d%d_a%d" % (dims, axis), "Slice", "-23300=3,2,4,1 1=%d" % axis, [s], outputs=3)
        _add("slice_d%d_a%d_even" % (dims, axis), "Slice", "-23300=3,-233,-233,-233 1=%d" % (axis - dims), [s], outputs=3)
        _add("slice_d%d_a%d_rest" % (dims, axis), "Slice", "-23300=2,3,-233 1=%d" % axis, [s], outputs=2)
        _add("slice_d%d_a%d_indices" % (dims, axis), "Slice", "-23302=2,1,4 1=%d" % axis, [s], outputs=3)

# ---- Crop: offsets + sizes (clamped), -233, offset2 trims, numpy slices, reference input
_add("crop_d1_off_size", "Crop", "0=2 3=3", [[9]])
_add("crop_d1_rest", "Crop", "0=2 3=-233", [[9]])
_add("crop_d1_off2", "Crop", "0=1 6=3 3=-233", [[9]])
_add("crop_d1_clamp", "Crop", "0=4 3=100", [[9]])
_add("crop_d2", "Crop", "0=1 1=2 3=3 4=2", [[7, 5]])
_add("crop_d2_rest", "Crop", "0=1 1=2 3=-233 4=-233", [[7, 5]])
_add("crop_d2_off2", "Crop", "0=1 1=1 6=2 7=1 3=-233 4=-233", [[7, 5]])
_add("crop_d3", "Crop", "0=1 1=2 2=1 3=3 4=2 5=2", [[7, 5, 4]])
_add("crop_d3_rest", "Crop", "0=2 1=1 2=1 3=-233 4=-233 5=-233", [[7, 5, 4]])
_add("crop_d3_off2", "Crop", "0=1 1=1 2=1 6=1 7=2 8=1 3=-233 4=-233 5=-233", [[7, 5, 4]])
_add("crop_d3_clamp", "Crop", "0=3 1=0 2=2 3=50 4=50 5=50", [[7, 5, 4]])
_add("crop_d4", "Crop", "0=1 1=1 13=1 2=1 3=3 4=2 14=2 5=2", [[6, 5, 4, 3]])
_add("crop_d4_rest", "Crop", "0=1 1=2 13=1 2=0 3=-233 4=-233 14=-233 5=-233", [[6, 5, 4, 3]])
_add("crop_d4_off2", "Crop", "0=1 1=1 13=1 2=1 6=1 7=1 15=1 8=0 3=-233 4=-233 14=-233 5=-233", [[6, 5, 4, 3]])
_add("crop_np_d1", "Crop", "-23309=1,2 -23310=1,-2", [[9]])
_add("crop_np_d2_all", "Crop", "-23309=2,1,2 -23310=2,-1,100", [[7, 5]])
_add("crop_np_d2_axis", "Crop", "-23309=1,1 -23310=1,3 -23311=1,1", [[7, 5]])
_add("crop_np_d2_negaxis", "Crop", "-23309=1,-3 -23310=1,-233 -23311=1,-1", [[7, 5]])
_add("crop_np_d3_c", "Crop", "-23309=1,1 -23310=1,3 -23311=1,0", [[5, 4, 4]])
_add("crop_np_d3_hw", "Crop", "-23309=2,1,2 -23310=2,3,-1 -23311=2,1,2", [[7, 5, 4]])
_add("crop_np_d3_all", "Crop", "-23309=3,1,1,1 -23310=3,3,4,6", [[7, 5, 4]])
_add("crop_np_d4_d", "Crop", "-23309=1,1 -23310=1,3 -23311=1,1", [[5, 4, 4, 3]])
_add("crop_np_d4_all", "Crop", "-23309=4,1,0,1,2 -23310=4,3,-1,3,5", [[6, 4, 4, 3]])
_add("crop_np_d4_negaxes", "Crop", "-23309=2,1,1 -23310=2,-1,-1 -23311=2,-1,-2", [[6, 4, 4, 3]])
_add("crop_ref_d2", "Crop", "0=1 1=2", [[7, 5], [3, 2]])
_add("crop_ref_d3", "Crop", "0=2 1=1", [[7, 5, 4], [3, 2, 4]])
_add("crop_ref_d3_c", "Crop", "0=1 1=1 2=1", [[7, 5, 4], [3, 2, 2]])
_add("crop_ref_d3_ref2d", "Crop", "0=1 1=1", [[7, 5, 4], [3, 2]])
_add("crop_ref_d4", "Crop", "0=1 1=1 13=1 2=1", [[6, 5, 4, 3], [3, 2, 2, 2]])
_add("crop_ref_d1", "Crop", "0=2", [[9], [4]])

# ---- Padding: constant / replicate / reflect on every dims; channel (dims 3)
# and depth (dims 4) pads via front/behind; per-channel constants from the bin
_PADS = {
    1: "2=2 3=1",
    2: "0=1 1=2 2=2 3=1",
    3: "0=1 1=2 2=2 3=1 7=1 8=2",
    4: "0=1 1=2 2=2 3=1 7=1 8=1",
}
for dims, shp in _SHAPES.items():
    pads = _PADS[dims]
    _add("padding_d%d_constant" % dims, "Padding", pads + " 4=0 5=0.5", [shp])
    _add("padding_d%d_replicate" % dims, "Padding", pads + " 4=1", [shp])
    if dims != 4:  # ncnn's reflect along d reads garbage
        _add("padding_d%d_reflect" % dims, "Padding", pads + " 4=2", [shp])
_add("padding_d4_reflect_hw", "Padding", "0=1 1=2 2=2 3=1 4=2", [[3, 5, 2, 3]])
_add("padding_d3_hw_only", "Padding", "0=3 1=0 2=0 3=3 4=0 5=-1.5", [[5, 3, 4]])
_add("padding_d3_reflect_wide", "Padding", "0=2 1=2 2=4 3=4 4=2", [[5, 3, 4]])
_add("padding_d3_c_only", "Padding", "7=2 8=1 4=0 5=2.0", [[5, 3, 4]])
_add("padding_d3_c_reflect", "Padding", "7=2 8=3 4=2", [[5, 3, 4]])
_add("padding_d3_per_channel", "Padding", "0=1 1=1 2=1 3=2 4=0 6=4", [[5, 3, 4]], weights=[[4, 1]])
_add("padding_d3_per_channel_front", "Padding", "0=1 2=1 7=1 8=2 4=0 6=7", [[5, 3, 4]], weights=[[7, 1]])
_add("padding_d4_per_channel", "Padding", "0=1 1=1 2=1 3=1 7=1 4=0 6=3", [[3, 5, 2, 3]], weights=[[3, 1]])

# ---- Flatten
for dims, shp in _SHAPES.items():
    _add("flatten_d%d" % dims, "Flatten", "", [shp])

# ---- Reshape: every output dims, 0 copy, -1 infer, from every input dims
_add("reshape_d3_to_1", "Reshape", "0=-1", [[5, 3, 4]])
_add("reshape_d3_to_2", "Reshape", "0=15 1=-1", [[5, 3, 4]])
_add("reshape_d3_to_2_infer_w", "Reshape", "0=-1 1=6", [[5, 3, 4]])
_add("reshape_d3_to_3", "Reshape", "0=3 1=5 2=4", [[5, 3, 4]])
_add("reshape_d3_to_3_copy", "Reshape", "0=0 1=-1 2=2", [[5, 3, 4]])
_add("reshape_d3_to_4", "Reshape", "0=5 1=3 11=2 2=2", [[5, 3, 4]])
_add("reshape_d3_to_4_infer", "Reshape", "0=5 1=3 11=-1 2=2", [[5, 3, 4]])
_add("reshape_d1_to_3", "Reshape", "0=2 1=3 2=-1", [[24]])
_add("reshape_d1_to_2", "Reshape", "0=4 1=-1", [[24]])
_add("reshape_d2_to_3", "Reshape", "0=3 1=-1 2=3", [[9, 2]])
_add("reshape_d2_to_1", "Reshape", "0=18", [[9, 2]])
_add("reshape_d4_to_3", "Reshape", "0=0 1=0 2=-1", [[3, 5, 2, 3]])
_add("reshape_d4_to_2", "Reshape", "0=15 1=-1", [[3, 5, 2, 3]])
_add("reshape_d4_to_4", "Reshape", "0=5 1=3 11=3 2=-1", [[3, 5, 2, 3]])
_add("reshape_d3_expr", "Reshape", "6=\"0w,*(0h,0c)\"", [[5, 3, 4]])
_add("reshape_d3_expr_4d", "Reshape", "6=\"0w,0h,2,/(0c,2)\"", [[5, 3, 4]])

# ---- Permute: both 2-D orders, all 6 3-D orders, all 24 4-D orders
for o in range(2):
    _add("permute_d2_o%d" % o, "Permute", "0=%d" % o, [[5, 3]])
for o in range(6):
    _add("permute_d3_o%d" % o, "Permute", "0=%d" % o, [[5, 3, 4]])
for o in range(24):
    _add("permute_d4_o%d" % o, "Permute", "0=%d" % o, [[3, 5, 2, 4]])
_add("permute_d1", "Permute", "0=1", [[7]])

# ---- ShuffleChannel
for g, rev in [(2, 0), (3, 0), (2, 1), (3, 1), (6, 0), (1, 0)]:
    _add("shufflechannel_g%d_r%d" % (g, rev), "ShuffleChannel", "0=%d 1=%d" % (g, rev), [[5, 3, 6]])
_add("shufflechannel_d4", "ShuffleChannel", "0=2", [[3, 2, 2, 6]])
_add("shufflechannel_d4_rev", "ShuffleChannel", "0=3 1=1", [[3, 2, 2, 6]])
_add("reshape_d3_expr_ref", "Reshape", "6=\"1w,-1\"", [[5, 3, 4], [6, 2]])

# ---- Interp: nearest / bilinear / bicubic, sizes from scales (coordinate
# step 1/scale) or given (in/out), up and down, align_corner, dims 1/2/3,
# dynamic target size. Bicubic inputs are >= 4 wide/high (ncnn reads out of
# bounds below that).
for rt in (1, 2, 3):
    for tag, p in [("scale2", "1=2.0 2=2.0"), ("scale_odd", "1=1.7 2=2.6"), ("scale_down", "1=0.5 2=0.6"),
                   ("size_up", "3=11 4=13"), ("size_down", "3=4 4=5"), ("size_mixed", "3=3 4=17")]:
        _add("interp_t%d_%s" % (rt, tag), "Interp", "0=%d %s" % (rt, p), [[9, 7, 3]])
    if rt != 1:
        _add("interp_t%d_align_up" % rt, "Interp", "0=%d 3=11 4=13 6=1" % rt, [[9, 7, 3]])
        _add("interp_t%d_align_down" % rt, "Interp", "0=%d 3=4 4=5 6=1" % rt, [[9, 7, 3]])
        _add("interp_t%d_align_scale" % rt, "Interp", "0=%d 1=2.0 2=2.0 6=1" % rt, [[9, 7, 3]])
    _add("interp_t%d_d2_scale" % rt, "Interp", "0=%d 1=1.0 2=1.7" % rt, [[9, 4]])
    _add("interp_t%d_d2_size" % rt, "Interp", "0=%d 3=4 4=13" % rt, [[9, 4]])
    _add("interp_t%d_d1" % rt, "Interp", "0=%d 3=3 4=5" % rt, [[6]])
    _add("interp_t%d_d1_scale" % rt, "Interp", "0=%d 1=2.0 2=3.0" % rt, [[6]])
    _add("interp_t%d_dynamic" % rt, "Interp", "0=%d 5=1" % rt, [[9, 7, 3], [13, 10, 1]])
    # a 3-D reference: ncnn reads a packed 2-D reference's h without its elempack
    _add("interp_t%d_dynamic_down" % rt, "Interp", "0=%d 5=1" % rt, [[9, 7, 3], [5, 4, 1]])
_add("interp_t2_small", "Interp", "0=2 3=5 4=6", [[2, 2, 3]])
_add("interp_t1_single_pixel", "Interp", "0=1 3=3 4=4", [[1, 1, 2]])
_add("interp_t2_dynamic_align", "Interp", "0=2 5=1 6=1", [[9, 7, 3], [13, 10, 1]])

# ---- PixelShuffle (CRD / DCR) and Reorg (both modes)
for r in (2, 3):
    for mode in (0, 1):
        _add("pixelshuffle_r%d_m%d" % (r, mode), "PixelShuffle", "0=%d 1=%d" % (r, mode), [[5, 3, 2 * r * r]])
        _add("reorg_s%d_m%d" % (r, mode), "Reorg", "0=%d 1=%d" % (r, mode), [[6 * r // 2 * 2, 3 * r, 3]])
_add("reorg_s2_odd", "Reorg", "0=2", [[7, 5, 3]])

# ---- Tile: axis/tiles on every axis of every dims, numpy-style repeats
for dims, shp in _SHAPES.items():
    for axis in range(dims):
        _add("tile_d%d_a%d" % (dims, axis), "Tile", "0=%d 1=3" % axis, [shp])
_add("tile_rep_d2", "Tile", "-23302=2,2,3", [[3, 2]])
_add("tile_rep_d2_short", "Tile", "-23302=1,2", [[3, 2]])
_add("tile_rep_d2_grow3", "Tile", "-23302=3,2,1,2", [[3, 2]])
_add("tile_rep_d1_grow2", "Tile", "-23302=2,3,2", [[5]])
_add("tile_rep_d1_grow4", "Tile", "-23302=4,2,1,2,1", [[5]])
_add("tile_rep_d3", "Tile", "-23302=3,2,3,2", [[5, 3, 2]])
_add("tile_rep_d3_grow4", "Tile", "-23302=4,2,1,2,1", [[5, 3, 2]])
_add("tile_rep_d4", "Tile", "-23302=4,2,1,2,3", [[3, 2, 2, 2]])
_add("tile_rep_over_axis", "Tile", "-23302=1,2 0=0 1=3", [[5, 3]])

# ---- ExpandDims (axes) and Squeeze (flags and axes)
for name, p, s in [("d1_a0", "-23303=1,0", [7]), ("d1_a1", "-23303=1,1", [7]), ("d1_a01", "-23303=2,0,1", [7]),
                   ("d1_a02", "-23303=2,0,2", [7]), ("d1_three", "-23303=3,0,1,3", [7]),
                   ("d2_a0", "-23303=1,0", [5, 3]), ("d2_a1", "-23303=1,1", [5, 3]), ("d2_neg", "-23303=1,-1", [5, 3]),
                   ("d2_two", "-23303=2,0,-1", [5, 3]), ("d3_a0", "-23303=1,0", [5, 3, 4]), ("d3_a2", "-23303=1,2", [5, 3, 4]),
                   ("d3_neg", "-23303=1,-1", [5, 3, 4])]:
    _add("expanddims_" + name, "ExpandDims", p, [s])
for name, p, s in [("d3_flags_hc", "1=1 2=1", [5, 1, 1]), ("d3_flags_all", "0=1 1=1 2=1", [1, 1, 1]),
                   ("d3_flag_notone", "0=1", [5, 1, 3]), ("d3_h", "1=1", [5, 1, 3]), ("d3_c", "2=1", [5, 3, 1]),
                   ("d2_w", "0=1", [1, 3]), ("d2_h", "1=1", [4, 1]), ("d4_d", "11=1", [5, 3, 1, 2]),
                   ("d4_dc", "11=1 2=1", [5, 3, 1, 1]), ("d4_h", "1=1", [4, 1, 1, 2]),
                   ("axes_d3_0", "-23303=1,0", [5, 3, 1]), ("axes_d3_neg", "-23303=1,-1", [1, 3, 2]),
                   ("axes_d3_notone", "-23303=1,1", [1, 3, 2]), ("axes_d4_01", "-23303=2,0,1", [5, 3, 1, 1]),
                   ("axes_d2_all", "-23303=2,0,1", [1, 1]), ("axes_d4_2", "-23303=1,2", [5, 1, 2, 3])]:
    _add("squeeze_" + name, "Squeeze", p, [s])

# ---- MemoryData (data from the bin, every dims), DeepCopy, Cast, CumulativeSum
# MemoryData has no inputs, which the runner does not build yet: these cases
# are kept apart (NO_INPUT_CASES) until it does; they pass against ncnn with
# a model of just the MemoryData layer.
NO_INPUT_CASES = [
    {"name": "memorydata_d1", "type": "MemoryData", "params": "0=7", "inputs": [], "weights": [[7, 1]]},
    {"name": "memorydata_d2", "type": "MemoryData", "params": "0=5 1=3", "inputs": [], "weights": [[15, 1]]},
    {"name": "memorydata_d3", "type": "MemoryData", "params": "0=5 1=3 2=4", "inputs": [], "weights": [[60, 1]]},
    {"name": "memorydata_d4", "type": "MemoryData", "params": "0=3 1=5 11=2 2=3", "inputs": [], "weights": [[90, 1]]},
    {"name": "memorydata_d3_tagged", "type": "MemoryData", "params": "0=5 1=3 2=2 21=0", "inputs": [], "weights": [[30, 0]]},
]
for dims, shp in _SHAPES.items():
    _add("deepcopy_d%d" % dims, "DeepCopy", "", [shp])
    for axis in range(dims):
        _add("cumulativesum_d%d_a%d" % (dims, axis), "CumulativeSum", "0=%d" % axis, [shp])
    _add("cumulativesum_d%d_neg" % dims, "CumulativeSum", "0=-1", [shp])
# fp32 -> fp16: ncnn hands back a float16 array
_add("cast_fp32_fp16", "Cast", "0=1 1=2", [[5, 3, 4]], input_range=[-100, 100], tolerance=1e-3)
_add("cast_fp32_fp32", "Cast", "0=1 1=1", [[5, 3]])
