# protobuf for the converters (tools/convert, tools/caffe, ..., tests/fuzz):
# sets KITE_HAVE_PROTOBUF and defines kite_add_proto_library().
include_guard(GLOBAL)
# protobuf (Debian: libprotobuf-dev protobuf-compiler). Converters that need it
# check KITE_HAVE_PROTOBUF and skip themselves with a message otherwise.
find_package(Protobuf QUIET)
if(Protobuf_FOUND AND Protobuf_PROTOC_EXECUTABLE)
    set(KITE_HAVE_PROTOBUF ON CACHE INTERNAL "protobuf and protoc found")
    # cached so that the sibling folders (tools/caffe, ...) see them
    set(KITE_PROTOBUF_LIBRARIES "${Protobuf_LIBRARIES}" CACHE INTERNAL "")
    set(KITE_PROTOBUF_INCLUDE_DIRS "${Protobuf_INCLUDE_DIRS}" CACHE INTERNAL "")
    set(KITE_PROTOC "${Protobuf_PROTOC_EXECUTABLE}" CACHE INTERNAL "")
else()
    set(KITE_HAVE_PROTOBUF OFF CACHE INTERNAL "protobuf and protoc found")
    message(STATUS "protobuf not found: the caffe/onnx/tensorflow converters are not built (apt install libprotobuf-dev protobuf-compiler)")
endif()

# kite_add_proto_library(<target> <file.proto>): a static library of the
# generated C++ (in the build folder), linked to libprotobuf; include the
# header as "<file>.pb.h".
function(kite_add_proto_library target proto)
    get_filename_component(abs ${proto} ABSOLUTE)
    get_filename_component(name ${proto} NAME_WE)
    get_filename_component(dir ${abs} DIRECTORY)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_gen)
    file(MAKE_DIRECTORY ${out})
    add_custom_command(
        OUTPUT ${out}/${name}.pb.cc ${out}/${name}.pb.h
        COMMAND ${KITE_PROTOC} --cpp_out=${out} -I${dir} ${abs}
        DEPENDS ${abs}
        COMMENT "protoc ${name}.proto"
        VERBATIM)
    add_library(${target} STATIC ${out}/${name}.pb.cc)
    target_include_directories(${target} SYSTEM PUBLIC ${out} ${KITE_PROTOBUF_INCLUDE_DIRS})
    target_link_libraries(${target} PUBLIC ${KITE_PROTOBUF_LIBRARIES})
    # generated code: no warnings, position independent for the fuzzers
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# kite_add_converter_library(<target> PROTO <file.proto> SOURCES <files...>
#                            [INCLUDES <dirs...>] [LINKS <targets...>]):
# a converter without its CLI, as a static library over the generated
# <target>'s proto library and kite_convert. Defined once however many folders
# ask (the tool's folder and the fuzzers, built without KITE_BUILD_TOOLS);
# nothing when protobuf is missing. The converters throw internally, so they
# build with exceptions even when the runtime does not.
function(kite_add_converter_library target)
    cmake_parse_arguments(arg "" "PROTO" "SOURCES;INCLUDES;LINKS" ${ARGN})
    if(TARGET ${target})
        return()
    endif()
    if(NOT TARGET kite_convert)
        add_subdirectory(${PROJECT_SOURCE_DIR}/tools/convert ${PROJECT_BINARY_DIR}/tools/convert)
    endif()
    if(NOT KITE_HAVE_PROTOBUF)
        return()
    endif()
    kite_add_proto_library(${target}_proto ${arg_PROTO})
    add_library(${target} STATIC ${arg_SOURCES})
    get_filename_component(dir ${arg_PROTO} DIRECTORY)
    target_include_directories(${target} PUBLIC ${dir} ${arg_INCLUDES})
    target_link_libraries(${target} PUBLIC ${target}_proto kite_convert ${arg_LINKS})
    target_compile_options(${target} PRIVATE -fexceptions)
endfunction()
