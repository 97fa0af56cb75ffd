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
