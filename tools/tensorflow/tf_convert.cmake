# defines the static library kite_tf_convert (tensorflow2kite without its
# CLI) when protobuf is found; included by tools/tensorflow and by the
# fuzzers (tests/fuzz), which are built without KITE_BUILD_TOOLS
include(${PROJECT_SOURCE_DIR}/cmake/kite_protobuf.cmake)
set(_tf_dir ${PROJECT_SOURCE_DIR}/tools/tensorflow)
kite_add_converter_library(kite_tf_convert
    PROTO ${_tf_dir}/tf_graph.proto
    SOURCES ${_tf_dir}/tf_const.cpp ${_tf_dir}/tf_convert.cpp ${_tf_dir}/tf_ops.cpp)
