# defines the static library kite_tf_convert (tensorflow2kite without its
# CLI) when protobuf is found; included by tools/tensorflow and by the
# fuzzers (tests/fuzz), which are built without KITE_BUILD_TOOLS
if(TARGET kite_tf_convert)
    return()
endif()
if(NOT TARGET kite_convert)
    add_subdirectory(${PROJECT_SOURCE_DIR}/tools/convert ${PROJECT_BINARY_DIR}/tools/convert)
endif()
if(NOT KITE_HAVE_PROTOBUF)
    return()
endif()
set(_tf_dir ${PROJECT_SOURCE_DIR}/tools/tensorflow)
kite_add_proto_library(kite_tf_proto ${_tf_dir}/tf_graph.proto)
add_library(kite_tf_convert STATIC ${_tf_dir}/tf_const.cpp ${_tf_dir}/tf_convert.cpp ${_tf_dir}/tf_ops.cpp)
target_include_directories(kite_tf_convert PUBLIC ${_tf_dir})
target_link_libraries(kite_tf_convert PUBLIC kite_tf_proto kite_convert)
# the converter throws internally even when the runtime is built without exceptions
target_compile_options(kite_tf_convert PRIVATE -fexceptions)
