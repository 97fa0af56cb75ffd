# defines the static library kite_onnx_convert (the onnx2kite converter,
# without its CLI) when protobuf is found; included by tools/onnx and by the
# fuzzers (tests/fuzz), which are built without KITE_BUILD_TOOLS
if(TARGET kite_onnx_convert)
    return()
endif()
find_package(Protobuf QUIET)
if(NOT Protobuf_FOUND OR NOT Protobuf_PROTOC_EXECUTABLE)
    message(STATUS "onnx2kite: protobuf (libprotobuf-dev, protobuf-compiler) not found, not built")
    return()
endif()

set(_onnx_dir ${PROJECT_SOURCE_DIR}/tools/onnx)
set(_onnx_gen ${PROJECT_BINARY_DIR}/tools/onnx-proto)
file(MAKE_DIRECTORY ${_onnx_gen})
add_custom_command(
    OUTPUT ${_onnx_gen}/onnx_subset.pb.cc ${_onnx_gen}/onnx_subset.pb.h
    COMMAND ${Protobuf_PROTOC_EXECUTABLE} --cpp_out=${_onnx_gen} -I${_onnx_dir} ${_onnx_dir}/onnx_subset.proto
    DEPENDS ${_onnx_dir}/onnx_subset.proto
    COMMENT "protoc onnx_subset.proto")

add_library(kite_onnx_convert STATIC
    ${_onnx_gen}/onnx_subset.pb.cc
    ${_onnx_dir}/kgraph.cpp
    ${_onnx_dir}/onnx_convert.cpp
    ${_onnx_dir}/onnx_fold.cpp
    ${_onnx_dir}/onnx_ops.cpp)
target_include_directories(kite_onnx_convert PUBLIC ${_onnx_dir} ${_onnx_gen} ${PROJECT_SOURCE_DIR}/layer)
target_include_directories(kite_onnx_convert SYSTEM PUBLIC ${Protobuf_INCLUDE_DIRS})
target_link_libraries(kite_onnx_convert PUBLIC kite ${Protobuf_LITE_LIBRARIES})
# the converter throws internally even when the runtime is built without exceptions
target_compile_options(kite_onnx_convert PRIVATE -fexceptions)
