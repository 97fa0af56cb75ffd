"""A small graph builder that writes nodes the way torch.onnx.export names
and shapes them (scopes like /layer1/layer1.0/conv1/Conv, outputs
<node>_output_0, Constant nodes for Python ints, Shape->Gather->Unsqueeze->
Concat chains for sizes read from tensors). Weights are random (seeded)."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Builder:
    def __init__(self, opset, seed):
        self.opset = opset
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.names = {}
        self.nweights = 0

    # ------------------------------------------------------------ plumbing
    def _name(self, base):
        k = self.names.get(base, 0)
        self.names[base] = k + 1
        return base if k == 0 else "%s_%d" % (base, k)

    def node(self, op, inputs, scope="", nout=1, **attrs):
        name = self._name("%s/%s" % (scope, op))
        outs = ["%s_output_%d" % (name, i) for i in range(nout)]
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=name, **attrs))
        return outs[0] if nout == 1 else outs

    def weight(self, name, arr):
        arr = np.asarray(arr)
        if arr.dtype == np.float64:
            arr = arr.astype(np.float32)
        self.inits.append(numpy_helper.from_array(arr, name))
        self.nweights += arr.size
        return name

    def const(self, value, scope="", dtype=np.int64):
        """a Constant node, as torch writes Python numbers and lists"""
        name = self._name("%s/Constant" % scope)
        out = name + "_output_0"
        self.nodes.append(helper.make_node("Constant", [], [out], name=name,
                                           value=numpy_helper.from_array(np.asarray(value, dtype=dtype))))
        return out

    def randn(self, *shape, scale=1.0):
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def model(self, inputs, outputs):
        g = helper.make_graph(self.nodes, "main_graph",
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
                              self.inits)
        m = helper.make_model(g, producer_name="pytorch", producer_version="2.1.0",
                              opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 8
        return m

    # ------------------------------------------------------------ layers
    def conv(self, x, scope, cin, cout, k, s=1, p=None, g=1, bias=True, wname=None):
        p = (k - 1) // 2 if p is None else p
        fan_in = cin // g * k * k
        w = self.weight(wname or "%s.weight" % scope.strip("/").replace("/", "."), self.randn(cout, cin // g, k, k, scale=np.sqrt(2.0 / fan_in)))
        ins = [x, w]
        if bias:
            ins.append(self.weight("%s.bias" % scope.strip("/").replace("/", "."), self.randn(cout, scale=0.1)))
        return self.node("Conv", ins, scope, dilations=[1, 1], group=g, kernel_shape=[k, k], pads=[p, p, p, p], strides=[s, s])

    def bn(self, x, scope, c):
        pre = scope.strip("/").replace("/", ".")
        return self.node("BatchNormalization", [
            x,
            self.weight(pre + ".weight", self.rng.uniform(0.5, 1.5, c).astype(np.float32)),
            self.weight(pre + ".bias", self.randn(c, scale=0.1)),
            self.weight(pre + ".running_mean", self.randn(c, scale=0.1)),
            self.weight(pre + ".running_var", self.rng.uniform(0.5, 1.5, c).astype(np.float32))],
            scope, epsilon=1e-5, momentum=0.9)

    def linear_gemm(self, x, scope, cin, cout):
        pre = scope.strip("/").replace("/", ".")
        w = self.weight(pre + ".weight", self.randn(cout, cin, scale=np.sqrt(1.0 / cin)))
        b = self.weight(pre + ".bias", self.randn(cout, scale=0.1))
        return self.node("Gemm", [x, w, b], scope, alpha=1.0, beta=1.0, transB=1)

    def linear_matmul(self, x, scope, cin, cout):
        """nn.Linear on a 3-D input: MatMul with the transposed weight + Add"""
        pre = scope.strip("/").replace("/", ".")
        w = self.weight("onnx::MatMul_%s" % pre, self.randn(cin, cout, scale=np.sqrt(1.0 / cin)))
        b = self.weight(pre + ".bias", self.randn(cout, scale=0.1))
        y = self.node("MatMul", [x, w], scope)
        return self.node("Add", [b, y], scope)

    def relu6(self, x, scope):
        lo = self.const(0.0, scope, np.float32)
        hi = self.const(6.0, scope, np.float32)
        return self.node("Clip", [x, lo, hi], scope)

    def silu(self, x, scope):
        return self.node("Mul", [x, self.node("Sigmoid", [x], scope)], scope)

    def dim(self, x, i, scope):
        """x.size(i) as torch traces it: Shape -> Gather(scalar index)"""
        shp = self.node("Shape", [x], scope)
        return self.node("Gather", [shp, self.const(i, scope)], scope, axis=0)

    def unsq(self, v, scope):
        return self.node("Unsqueeze", [v, self.const([0], scope)], scope)

    def shape_of(self, parts, scope):
        """Concat of 1-element pieces into a shape tensor; ints become Constants"""
        ins = [self.const([p], scope) if isinstance(p, int) else self.unsq(p, scope) for p in parts]
        return self.node("Concat", ins, scope, axis=0)
