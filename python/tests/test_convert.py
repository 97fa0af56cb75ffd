import numpy as np
import pytest

import kite

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

SEED = 11


def small_model():
    rng = np.random.default_rng(SEED)
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"])],
        "small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 9, 11])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 9, 11])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m.SerializeToString()


def test_convert_onnx_bytes_and_files(tmp_path):
    if not hasattr(kite, "convert_onnx"):
        pytest.skip("module built without the ONNX converter (protobuf missing)")
    model = small_model()
    param, binw = kite.convert_onnx(model)
    assert param.startswith(b"7767517")
    x = np.random.default_rng(SEED).standard_normal((1, 3, 9, 11)).astype(np.float32)
    ref = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0][0]
    net = kite.Net()
    net.load_param(param)
    net.load_model(binw)
    with net.create_extractor() as ex:
        ex.input("x", x[0])
        out = np.array(ex.extract("y"))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5, err_msg="seed %d" % SEED)
    p, b = tmp_path / "m.param", tmp_path / "m.bin"
    (tmp_path / "m.onnx").write_bytes(model)
    assert kite.convert_onnx(str(tmp_path / "m.onnx"), p, b) is None
    assert p.read_bytes() == param and b.read_bytes() == binw
    assert "Conv" in kite.onnx_supported_ops()


def test_convert_onnx_errors(tmp_path):
    if not hasattr(kite, "convert_onnx"):
        pytest.skip("no ONNX converter")
    with pytest.raises(RuntimeError, match="onnx2kite"):
        kite.convert_onnx(b"\x01\x02garbage")
    with pytest.raises(ValueError, match="cannot open"):
        kite.convert_onnx(str(tmp_path / "missing.onnx"))


def test_convert_caffe_errors(tmp_path):
    if not hasattr(kite, "convert_caffe"):
        pytest.skip("no Caffe converter")
    proto = b'name: "t"\ninput: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n' \
            b'layer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 4 kernel_size: 3 } }\n'
    with pytest.raises(RuntimeError, match="caffe2kite"):
        kite.convert_caffe(proto, b"\xff\xff\xff not a caffemodel")
    with pytest.raises(ValueError, match="empty"):
        kite.convert_caffe(proto, b"")


TF_SCRIPT = r"""
import sys
import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

out = sys.argv[1]
rng = np.random.default_rng(int(sys.argv[2]))
w = tf.constant(rng.standard_normal((3, 3, 3, 5)).astype(np.float32))


@tf.function(input_signature=[tf.TensorSpec([1, 7, 9, 3], tf.float32, name="x")])
def f(x):
    return tf.nn.relu(tf.nn.conv2d(x, w, strides=1, padding="SAME"), name="y")


x = rng.standard_normal((1, 7, 9, 3)).astype(np.float32)
open(out + "/frozen.pb", "wb").write(convert_variables_to_constants_v2(f.get_concrete_function()).graph.as_graph_def().SerializeToString())
np.save(out + "/x.npy", x[0])
np.save(out + "/y.npy", f(tf.constant(x)).numpy()[0])
"""


def test_convert_tensorflow(tmp_path):
    """TensorFlow runs in a child process: loaded into this one, its LLVM and
    the Mesa/PoCL drivers' (GPU device listing) clash."""
    if not hasattr(kite, "convert_tensorflow"):
        pytest.skip("no TensorFlow converter")
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("tensorflow is not installed")
    subprocess.run([sys.executable, "-c", TF_SCRIPT, str(tmp_path), str(SEED)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    x, ref = np.load(tmp_path / "x.npy"), np.load(tmp_path / "y.npy")  # NHWC, batch dropped
    param, binw = kite.convert_tensorflow(str(tmp_path / "frozen.pb"), outputs=["y"])
    net = kite.Net()
    net.load_param(param)
    net.load_model(binw)
    with net.create_extractor() as ex:
        ex.input(net.input_names()[0], x)  # TensorFlow's order: the default input format NHWC
        out = np.array(ex.extract(net.output_names()[0]))
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4, err_msg="seed %d" % SEED)
