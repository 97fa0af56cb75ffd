"""kite: neural-network inference with ncnn-compatible .param/.bin models.

    import kite, numpy as np
    net = kite.Net()
    net.opt.num_threads = 2
    net.load_param("squeezenet.param")
    net.load_model("squeezenet.bin")
    with net.create_extractor() as ex:
        ex.input("data", np.zeros((3, 227, 227), np.float32))
        prob = np.asarray(ex.extract("prob"))      # a view, no copy

Arrays are kite's layout without a batch axis: (w), (h, w), (c, h, w) or
(c, d, h, w). See docs/python.md.
"""
from ._kite import (  # noqa: F401
    BACKEND_OPENCL,
    BACKEND_VULKAN,
    HAS_OPENCL,
    HAS_VULKAN,
    Extractor,
    Mat,
    Net,
    Option,
    apply_device_choice,
    choose_device,
    cpu_count,
    gpu_devices,
    last_error,
)
from . import _kite

__version__ = "0.1.0"

# the converters this build has (they need protobuf / flatbuffers at build time)
for _name in ("convert_onnx", "onnx_supported_ops", "convert_caffe", "convert_tensorflow", "convert_tflite"):
    if hasattr(_kite, _name):
        globals()[_name] = getattr(_kite, _name)
del _name

PixelType = Mat.PixelType


def vulkan_devices():
    """Names of the Vulkan devices kite can use (empty: none, or not built with KITE_VULKAN)."""
    return gpu_devices(BACKEND_VULKAN)


def opencl_devices():
    """Names of the OpenCL devices kite can use (empty: none, or not built with KITE_OPENCL)."""
    return gpu_devices(BACKEND_OPENCL)
