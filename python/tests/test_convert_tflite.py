"""kite.convert_tflite on a TensorFlow Lite model built with the flatbuffers
package (tests/convert/tflite/tflite_errors.py: CONV_2D + RELU + MEAN +
FULLY_CONNECTED, no TensorFlow needed), checked against numpy."""
import importlib.util
import os

import numpy as np
import pytest

import kite

pytest.importorskip("flatbuffers")

_HERE = os.path.dirname(os.path.abspath(__file__))
_SPEC = importlib.util.spec_from_file_location(
    "tflite_errors", os.path.join(_HERE, "..", "..", "tests", "convert", "tflite", "tflite_errors.py"))
tflite_errors = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(tflite_errors)

SEED = 12


def test_convert_tflite_bytes_and_files(tmp_path):
    if not hasattr(kite, "convert_tflite"):
        pytest.skip("no TensorFlow Lite converter (flatbuffers headers missing at build time)")
    model = tflite_errors.build()
    x = np.random.default_rng(SEED).uniform(-1, 1, (1, 6, 5, 3)).astype(np.float32)
    want = tflite_errors.reference(x)
    param, weights = kite.convert_tflite(model)
    (tmp_path / "m.tflite").write_bytes(model)
    assert kite.convert_tflite(str(tmp_path / "m.tflite"), str(tmp_path / "m.param"), str(tmp_path / "m.bin")) is None
    assert (tmp_path / "m.param").read_bytes() == param
    net = kite.Net()
    net.load_param(param)
    net.load_model(weights)
    with net.create_extractor() as ex:
        ex.input(net.input_names()[0], x[0])  # NHWC without the batch
        out = np.array(ex.extract(net.output_names()[0])).reshape(-1)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5, err_msg="seed %d" % SEED)


def test_convert_tflite_errors():
    if not hasattr(kite, "convert_tflite"):
        pytest.skip("no TensorFlow Lite converter")
    model = tflite_errors.build()
    with pytest.raises(RuntimeError, match="identifier is not 'TFL3'"):
        kite.convert_tflite(model[:4] + b"XXXX" + model[8:])
    with pytest.raises(RuntimeError, match="unsupported ops"):
        kite.convert_tflite(tflite_errors.build(ops=[(tflite_errors.TOPK_V2, [9], [10], None)]))
