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
