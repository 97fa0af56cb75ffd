# defines the static library kite_onnx_convert (the onnx2kite converter,
# without its CLI) when protobuf is found; included by tools/onnx and by the
# fuzzers (tests/fuzz), which are built without KITE_BUILD_TOOLS
if(TARGET kite_onnx_convert)
    return()
endif()
if(NOT TARGET kite_convert)
    add_subdirectory(${PROJECT_SOURCE_DIR}/tools/convert ${PROJECT_BINARY_DIR}/tools/convert)
endif()
if(NOT KITE_HAVE_PROTOBUF)
    return()
endif()

set(_onnx_dir ${PROJECT_SOURCE_DIR}/tools/onnx)
kite_add_proto_library(kite_onnx_proto ${_onnx_dir}/onnx_subset.proto)
add_library(kite_onnx_convert STATIC
    ${_onnx_dir}/onnx_convert.cpp
    ${_onnx_dir}/onnx_fold.cpp
    ${_onnx_dir}/onnx_ops.cpp)
target_include_directories(kite_onnx_convert PUBLIC ${_onnx_dir} ${PROJECT_SOURCE_DIR}/layer)
target_link_libraries(kite_onnx_convert PUBLIC kite_onnx_proto kite_convert kite)
# the converter throws internally even when the runtime is built without exceptions
target_compile_options(kite_onnx_convert PRIVATE -fexceptions)
