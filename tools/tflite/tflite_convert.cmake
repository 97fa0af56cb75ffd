# defines the static library kite_tflite_convert (tflite2kite without its
# CLI) when the flatbuffers headers are found; included by tools/tflite and
# by the fuzzers (tests/fuzz), which are built without KITE_BUILD_TOOLS
if(TARGET kite_tflite_convert)
    return()
endif()
find_path(KITE_FLATBUFFERS_INCLUDE_DIR flatbuffers/flatbuffers.h)
if(NOT KITE_FLATBUFFERS_INCLUDE_DIR)
    message(STATUS "tflite2kite disabled (needs the flatbuffers headers: libflatbuffers-dev)")
    return()
endif()
if(NOT TARGET kite_convert)
    add_subdirectory(${PROJECT_SOURCE_DIR}/tools/convert ${PROJECT_BINARY_DIR}/tools/convert)
endif()
set(_tflite_dir ${PROJECT_SOURCE_DIR}/tools/tflite)
add_library(kite_tflite_convert STATIC ${_tflite_dir}/tflite_model.cpp ${_tflite_dir}/tflite_convert.cpp
            ${_tflite_dir}/tflite_ops.cpp)
target_include_directories(kite_tflite_convert PUBLIC ${_tflite_dir})
# only the flatbuffers headers, through a folder of their own: a cross build
# must not see the host's /usr/include
set(_fb_inc ${PROJECT_BINARY_DIR}/generated/flatbuffers_include)
file(MAKE_DIRECTORY ${_fb_inc})
if(NOT EXISTS ${_fb_inc}/flatbuffers)
    file(CREATE_LINK ${KITE_FLATBUFFERS_INCLUDE_DIR}/flatbuffers ${_fb_inc}/flatbuffers SYMBOLIC)
endif()
target_include_directories(kite_tflite_convert SYSTEM PRIVATE ${_fb_inc})
target_compile_options(kite_tflite_convert PRIVATE -fexceptions)
target_link_libraries(kite_tflite_convert PUBLIC kite_convert)
