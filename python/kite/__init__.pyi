from typing import List

from ._kite import (
    BACKEND_OPENCL as BACKEND_OPENCL,
    BACKEND_VULKAN as BACKEND_VULKAN,
    HAS_OPENCL as HAS_OPENCL,
    HAS_VULKAN as HAS_VULKAN,
    Extractor as Extractor,
    Mat as Mat,
    Net as Net,
    Option as Option,
    apply_device_choice as apply_device_choice,
    choose_device as choose_device,
    convert_caffe as convert_caffe,
    convert_onnx as convert_onnx,
    convert_tensorflow as convert_tensorflow,
    convert_tflite as convert_tflite,
    cpu_count as cpu_count,
    gpu_devices as gpu_devices,
    last_error as last_error,
    onnx_supported_ops as onnx_supported_ops,
)

__version__: str
PixelType = Mat.PixelType

def vulkan_devices() -> List[str]: ...
def opencl_devices() -> List[str]: ...
