# defines the static library kite_onnx_convert (the onnx2kite converter,
# without its CLI) when protobuf is found; included by tools/onnx and by the
# fuzzers (tests/fuzz), which are built without KITE_BUILD_TOOLS
include(${PROJECT_SOURCE_DIR}/cmake/kite_protobuf.cmake)
set(_onnx_dir ${PROJECT_SOURCE_DIR}/tools/onnx)
kite_add_converter_library(kite_onnx_convert
    PROTO ${_onnx_dir}/onnx_subset.proto
    SOURCES ${_onnx_dir}/onnx_convert.cpp ${_onnx_dir}/onnx_fold.cpp ${_onnx_dir}/onnx_ops.cpp
        ${_onnx_dir}/onnx_ops_conv.cpp ${_onnx_dir}/onnx_ops_elementwise.cpp ${_onnx_dir}/onnx_ops_pad.cpp
        ${_onnx_dir}/onnx_ops_reduce.cpp ${_onnx_dir}/onnx_ops_shape.cpp
    INCLUDES ${PROJECT_SOURCE_DIR}/layer
    LINKS kite)
