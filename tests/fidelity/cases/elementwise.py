# Fidelity cases for the element-wise and activation layers: every activation
# with its parameters over dims 1..4, every UnaryOp on an input range where it
# is defined, every BinaryOp over every broadcasting pattern ncnn supports
# (and the with_scalar form), and Eltwise prod/sum/max with and without
# coefficients. Format: tests/fidelity/README.md.

CASES = []


def _add(name, type_, params, inputs, weights=(), **kw):
    c = {"name": name, "type": type_, "params": params, "inputs": [list(s) for s in inputs],
         "weights": [list(w) for w in weights]}
    c.update(kw)
    CASES.append(c)


# one odd-sized shape per rank: [w], [w,h], [w,h,c], [w,h,d,c]
SHAPES = {1: (23,), 2: (9, 5), 3: (7, 5, 3), 4: (5, 4, 3, 2)}


def _each_dims(name, type_, params, **kw):
    for dims, shape in SHAPES.items():
        _add("%s_d%d" % (name, dims), type_, params, [shape], **kw)


# ---------------------------------------------------------------- activations
_each_dims("relu", "ReLU", "")
_each_dims("relu_leaky", "ReLU", "0=0.1")
_each_dims("relu_negslope", "ReLU", "0=-0.5")

# PReLU: one shared slope, or one per w (dims 1) / row (dims 2) / channel (dims 3, 4)
_AXIS = {1: 0, 2: 1, 3: 2, 4: 3}
for dims, shape in SHAPES.items():
    _add("prelu_shared_d%d" % dims, "PReLU", "0=1", [shape], [(1, 1)])
    n = shape[_AXIS[dims]]
    _add("prelu_per_axis_d%d" % dims, "PReLU", "0=%d" % n, [shape], [(n, 1)])
_add("prelu_per_channel_many", "PReLU", "0=16", [(6, 5, 16)], [(16, 1)])

_each_dims("clip", "Clip", "0=-0.5 1=0.7")
_each_dims("clip_default", "Clip", "")
_each_dims("clip_relu6", "Clip", "0=0 1=6", input_range=[-8, 8])

for t in ("Sigmoid", "TanH", "Swish", "Mish", "BNLL", "AbsVal"):
    _each_dims(t.lower(), t, "", input_range=[-6, 6])
_add("sigmoid_wide", "Sigmoid", "", [(11, 7, 3)], input_range=[-30, 30])
_add("bnll_wide", "BNLL", "", [(11, 7, 3)], input_range=[-30, 30])
_add("mish_wide", "Mish", "", [(11, 7, 3)], input_range=[-20, 20])

_each_dims("hardswish_default", "HardSwish", "", input_range=[-5, 5])
_each_dims("hardswish_torch", "HardSwish", "0=0.1666667 1=0.5", input_range=[-5, 5])
_add("hardswish_custom", "HardSwish", "0=0.3 1=0.2", [(7, 5, 3)], input_range=[-5, 5])
_each_dims("hardsigmoid_default", "HardSigmoid", "", input_range=[-5, 5])
_each_dims("hardsigmoid_torch", "HardSigmoid", "0=0.1666667 1=0.5", input_range=[-5, 5])
_add("hardsigmoid_custom", "HardSigmoid", "0=0.3 1=0.2", [(7, 5, 3)], input_range=[-5, 5])

_each_dims("gelu_erf", "GELU", "0=0", input_range=[-4, 4])
_each_dims("gelu_fast", "GELU", "0=1", input_range=[-4, 4])
_add("gelu_default", "GELU", "", [(7, 5, 3)], input_range=[-4, 4])

_each_dims("elu_default", "ELU", "", input_range=[-4, 4])
_each_dims("elu_alpha1", "ELU", "0=1.0", input_range=[-4, 4])
_each_dims("selu_default", "SELU", "", input_range=[-4, 4])
_add("selu_custom", "SELU", "0=1.5 1=2.0", [(7, 5, 3)], input_range=[-4, 4])

_each_dims("exp_default", "Exp", "", input_range=[-3, 3])
_each_dims("exp_base2", "Exp", "0=2.0 1=0.5 2=0.3", input_range=[-3, 3])
_add("exp_e_scale_shift", "Exp", "1=1.5 2=-1", [(7, 5, 3)], input_range=[-2, 2])
_add("exp_base10", "Exp", "0=10.0", [(9, 5)], input_range=[-1, 1])

_each_dims("log_default", "Log", "", input_range=[0.1, 4])
_each_dims("log_base10", "Log", "0=10.0 1=2.0 2=0.5", input_range=[0.1, 4])
_add("log_base2", "Log", "0=2.0", [(7, 5, 3)], input_range=[0.1, 4])
_add("log_e_scale_shift", "Log", "1=0.5 2=1.0", [(7, 5, 3)], input_range=[-1, 4])

_each_dims("power_default", "Power", "", input_range=[-2, 2])
_each_dims("power_sq", "Power", "0=2.0 1=1.5 2=0.5", input_range=[-2, 2])
_add("power_sqrt", "Power", "0=0.5", [(7, 5, 3)], input_range=[0.05, 4])
_add("power_cube", "Power", "0=3.0 1=-1.0", [(7, 5, 3)], input_range=[-2, 2])
_add("power_inv", "Power", "0=-1.0 2=1.0", [(7, 5, 3)], input_range=[0.2, 3])

_each_dims("threshold_default", "Threshold", "")
_each_dims("threshold_03", "Threshold", "0=0.3")
_each_dims("dropout_default", "Dropout", "")
_each_dims("dropout_scale", "Dropout", "0=0.8")
_each_dims("noop", "Noop", "")

# ---------------------------------------------------------------- UnaryOp
_UNARY = [
    # (op, name, input range)
    (0, "abs", [-3, 3]),
    (1, "neg", [-3, 3]),
    (2, "floor", [-5, 5]),
    (3, "ceil", [-5, 5]),
    (4, "square", [-3, 3]),
    (5, "sqrt", [0.01, 4]),
    (6, "rsqrt", [0.1, 4]),
    (7, "exp", [-3, 3]),
    (8, "log", [0.05, 5]),
    (9, "sin", [-4, 4]),
    (10, "cos", [-4, 4]),
    (11, "tan", [-1.2, 1.2]),
    (12, "asin", [-0.99, 0.99]),
    (13, "acos", [-0.99, 0.99]),
    (14, "atan", [-5, 5]),
    (15, "reciprocal", [0.2, 3]),
    (16, "tanh", [-4, 4]),
    (17, "log10", [0.05, 5]),
    (18, "round", [-6, 6]),
    (19, "trunc", [-6, 6]),
]
for op, nm, rng in _UNARY:
    _each_dims("unary_%s" % nm, "UnaryOp", "0=%d" % op, input_range=rng)
_add("unary_reciprocal_negative", "UnaryOp", "0=15", [(7, 5, 3)], input_range=[-3, -0.2])
_add("unary_default_abs", "UnaryOp", "", [(7, 5, 3)])

# ---------------------------------------------------------------- BinaryOp
# ops with an input range that keeps them finite and well conditioned
_BINARY = [
    (0, "add", [-2, 2]),
    (1, "sub", [-2, 2]),
    (2, "mul", [-2, 2]),
    (3, "div", [0.5, 2]),
    (4, "max", [-2, 2]),
    (5, "min", [-2, 2]),
    (6, "pow", [0.2, 2]),
    (7, "rsub", [-2, 2]),
    (8, "rdiv", [0.5, 2]),
    (9, "rpow", [0.2, 2]),
    (10, "atan2", [-2, 2]),
    (11, "ratan2", [-2, 2]),
]

# (pattern name, shape of a, shape of b): every rank pairing and every
# same-rank broadcast that ncnn's BinaryOp supports, both operand orders
_PATTERNS = [
    # equal shapes
    ("1d_same", (13,), (13,)),
    ("2d_same", (9, 5), (9, 5)),
    ("3d_same", (7, 5, 3), (7, 5, 3)),
    ("4d_same", (5, 4, 3, 2), (5, 4, 3, 2)),
    # a single value
    ("1d_scalar", (13,), (1,)),
    ("2d_scalar", (9, 5), (1,)),
    ("3d_scalar", (7, 5, 3), (1,)),
    ("4d_scalar", (5, 4, 3, 2), (1,)),
    ("scalar_1d", (1,), (13,)),
    ("scalar_2d", (1,), (9, 5)),
    ("scalar_3d", (1,), (7, 5, 3)),
    ("scalar_4d", (1,), (5, 4, 3, 2)),
    # 1-D against 2-D: per row (n == h) or along w
    ("2d_1d_rows", (9, 5), (5,)),
    ("1d_2d_rows", (5,), (9, 5)),
    ("2d_1d_w", (9, 5), (9,)),
    ("1d_2d_w", (9,), (9, 5)),
    # 1-D against 3-D / 4-D: per channel (n == c) or along w
    ("3d_1d_channel", (7, 5, 3), (3,)),
    ("1d_3d_channel", (3,), (7, 5, 3)),
    ("3d_1d_w", (7, 5, 3), (7,)),
    ("1d_3d_w", (7,), (7, 5, 3)),
    ("4d_1d_channel", (5, 4, 3, 2), (2,)),
    ("1d_4d_channel", (2,), (5, 4, 3, 2)),
    ("4d_1d_w", (5, 4, 3, 2), (5,)),
    ("1d_4d_w", (5,), (5, 4, 3, 2)),
    # ambiguous lengths: per row / per channel wins over along w
    ("2d_1d_square", (5, 5), (5,)),
    ("1d_2d_square", (5,), (5, 5)),
    ("3d_1d_cube", (4, 4, 4), (4,)),
    ("1d_3d_w_eq_c", (3,), (3, 5, 3)),
    ("4d_1d_w_eq_c", (3, 4, 5, 3), (3,)),
    # 2-D against 3-D / 4-D, 3-D against 4-D (inner axes expanded)
    ("3d_2d", (7, 5, 3), (5, 3)),
    ("2d_3d", (5, 3), (7, 5, 3)),
    ("4d_2d", (5, 4, 3, 2), (3, 2)),
    ("2d_4d", (3, 2), (5, 4, 3, 2)),
    ("4d_3d", (5, 4, 3, 2), (4, 3, 2)),
    ("3d_4d", (4, 3, 2), (5, 4, 3, 2)),
    # same rank, size-1 axes repeated
    ("2d_row_bcast", (9, 5), (1, 5)),
    ("2d_col_bcast", (9, 5), (9, 1)),
    ("2d_outer", (9, 1), (1, 5)),
    ("3d_per_channel", (7, 5, 3), (1, 1, 3)),
    ("3d_per_channel_rev", (1, 1, 3), (7, 5, 3)),
    ("3d_plane", (7, 5, 3), (7, 5, 1)),
    ("3d_plane_rev", (7, 5, 1), (7, 5, 3)),
    ("3d_w1", (7, 5, 3), (1, 5, 3)),
    ("3d_w1_rev", (1, 5, 3), (7, 5, 3)),
    ("3d_h1", (7, 5, 3), (7, 1, 3)),
    ("3d_h1_rev", (7, 1, 3), (7, 5, 3)),
    ("3d_mixed", (7, 1, 3), (1, 5, 1)),
    ("3d_one", (7, 5, 3), (1, 1, 1)),
    ("4d_per_channel", (5, 4, 3, 2), (1, 1, 1, 2)),
    ("4d_volume", (5, 4, 3, 2), (5, 4, 3, 1)),
    ("4d_w1", (5, 4, 3, 2), (1, 4, 3, 2)),
    ("4d_d1", (5, 4, 3, 2), (5, 4, 1, 2)),
    ("4d_wd1_rev", (1, 4, 1, 2), (5, 4, 3, 2)),
    ("4d_mixed", (5, 1, 3, 1), (1, 4, 1, 2)),
]
for op, nm, rng in _BINARY:
    for pname, sa, sb in _PATTERNS:
        _add("binary_%s_%s" % (nm, pname), "BinaryOp", "0=%d" % op, [sa, sb], input_range=rng)

# with_scalar: one input, in place
_SCALAR_B = {0: 0.7, 1: 0.7, 2: -1.3, 3: 0.7, 4: 0.25, 5: 0.25, 6: 2.0, 7: 0.7, 8: 1.3, 9: 1.7, 10: 0.6, 11: -0.6}
for op, nm, rng in _BINARY:
    _each_dims("binary_scalar_%s" % nm, "BinaryOp", "0=%d 1=1 2=%g" % (op, _SCALAR_B[op]), input_range=rng)
_add("binary_scalar_pow_half", "BinaryOp", "0=6 1=1 2=0.5", [(7, 5, 3)], input_range=[0.01, 3])
_add("binary_scalar_default_b", "BinaryOp", "0=0 1=1", [(7, 5, 3)])

# ---------------------------------------------------------------- Eltwise
for dims, shape in SHAPES.items():
    for op, nm in ((0, "prod"), (1, "sum"), (2, "max")):
        _add("eltwise_%s_2in_d%d" % (nm, dims), "Eltwise", "0=%d" % op, [shape, shape])
        _add("eltwise_%s_3in_d%d" % (nm, dims), "Eltwise", "0=%d" % op, [shape, shape, shape])
    _add("eltwise_sum_coeffs_2in_d%d" % dims, "Eltwise", "0=1 -23301=2,0.5,-1.5", [shape, shape])
    _add("eltwise_sum_coeffs_3in_d%d" % dims, "Eltwise", "0=1 -23301=3,0.25,2.0,-0.75", [shape, shape, shape])
_add("eltwise_sum_4in", "Eltwise", "0=1", [(6, 5, 4)] * 4)
_add("eltwise_prod_coeffs_ignored", "Eltwise", "0=0 -23301=2,3.0,3.0", [(6, 5, 4)] * 2)
_add("eltwise_max_coeffs_ignored", "Eltwise", "0=2 -23301=2,3.0,3.0", [(6, 5, 4)] * 2)
