# cmake -P script: the integer dot product variant of an int8 shader.
#
#   cmake -DIN=x.spv -DOUT=x.spv.h -DVAR=kite_spv_x -DDIS=spirv-dis -DAS=spirv-as
#         -DVAL=spirv-val -DENV=vulkan1.1 -P kite_spirv_dot.cmake
#
# glslang 12 has no GL_EXT_integer_dot_product, so the shaders call the
# marker int kite_sdot4(int a, int b, int acc) (shaders/vulkan/int8.h: a + the
# packed 4 x int8 dot product of a and b, written portably). This script
# disassembles the SPIR-V glslang made (IN), replaces the marker's body with
#   OpSDotKHR %int %a %b PackedVectorFormat4x8BitKHR; OpIAdd (acc +)
# (SPV_KHR_integer_dot_product: capabilities DotProductKHR and
# DotProductInput4x8BitPackedKHR), drops the debug names and decorations of
# the ids the old body defined, assembles and validates the result (the
# Vulkan version of the shaders) and writes it as a C array VAR in OUT (the
# format of glslangValidator --vn). OpSDotKHR + OpIAdd wraps as the portable
# body does (OpSDotAccSatKHR would saturate): bit-identical results; drivers
# inline the one-call function.
foreach(v IN ITEMS IN OUT VAR DIS AS VAL ENV)
    if(NOT DEFINED ${v})
        message(FATAL_ERROR "kite_spirv_dot.cmake: -D${v}= is missing")
    endif()
endforeach()

execute_process(COMMAND ${DIS} --no-header ${IN} OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kite_spirv_dot.cmake: ${DIS} ${IN} failed: ${err}")
endif()

# the marker function's id (glslang names it after its signature)
string(REGEX MATCHALL "OpName %[A-Za-z0-9_]+ \"kite_sdot4\\(" names "${text}")
list(LENGTH names n)
if(NOT n EQUAL 1)
    message(FATAL_ERROR "kite_spirv_dot.cmake: ${IN} has ${n} functions named kite_sdot4 (1 expected: the shader must call "
                        "the marker of shaders/vulkan/int8.h when compiled with -DKITE_INT8_DOT)")
endif()
string(REGEX REPLACE "OpName %([A-Za-z0-9_]+) .*" "\\1" fid "${names}")

string(FIND "${text}" "%${fid} = OpFunction " start)
if(start LESS 0)
    message(FATAL_ERROR "kite_spirv_dot.cmake: no OpFunction for %${fid} in ${IN}")
endif()
string(SUBSTRING "${text}" 0 ${start} head)
string(SUBSTRING "${text}" ${start} -1 tail)
string(FIND "${tail}" "OpFunctionEnd" fend)
string(SUBSTRING "${tail}" 0 ${fend} func)
string(SUBSTRING "${tail}" ${fend} -1 rest)

string(REGEX MATCH "^%${fid} = OpFunction %([A-Za-z0-9_]+) [^\n]*\n" fline "${func}")
if(NOT fline)
    message(FATAL_ERROR "kite_spirv_dot.cmake: cannot read the OpFunction line of %${fid}")
endif()
set(rtype ${CMAKE_MATCH_1})
string(REGEX MATCHALL "%[A-Za-z0-9_]+ = OpFunctionParameter %[A-Za-z0-9_]+" params "${func}")
list(LENGTH params np)
if(NOT np EQUAL 3)
    message(FATAL_ERROR "kite_spirv_dot.cmake: kite_sdot4 has ${np} parameters (3 expected)")
endif()
# glslang passes the parameters by pointer (Function storage): a pointer
# parameter is loaded, one of the result type taken as it is
string(REGEX MATCH "\n *%([A-Za-z0-9_]+) = OpTypePointer Function %${rtype}\n" ptrline "${text}")
set(ptype ${CMAKE_MATCH_1})
set(newfunc "${fline}")
set(vals "")
set(loads "")
set(i 0)
foreach(pl IN LISTS params)
    string(REGEX REPLACE "^%([A-Za-z0-9_]+) = OpFunctionParameter %([A-Za-z0-9_]+)$" "\\1;\\2" pp "${pl}")
    list(GET pp 0 pid)
    list(GET pp 1 pt)
    string(APPEND newfunc "${pl}\n")
    if(pt STREQUAL rtype)
        list(APPEND vals "%${pid}")
    elseif(ptype AND pt STREQUAL ptype)
        string(APPEND loads "%kite_dot_v${i} = OpLoad %${rtype} %${pid}\n")
        list(APPEND vals "%kite_dot_v${i}")
    else()
        message(FATAL_ERROR "kite_spirv_dot.cmake: kite_sdot4's parameter %${pid} has type %${pt} (not %${rtype} or a pointer to it)")
    endif()
    math(EXPR i "${i} + 1")
endforeach()
list(GET vals 0 va)
list(GET vals 1 vb)
list(GET vals 2 vc)
string(APPEND newfunc "%kite_dot_label = OpLabel\n${loads}"
       "%kite_dot_d = OpSDotKHR %${rtype} ${va} ${vb} PackedVectorFormat4x8BitKHR\n"
       "%kite_dot_r = OpIAdd %${rtype} %kite_dot_d ${vc}\n"
       "OpReturnValue %kite_dot_r\n")

# the ids the old body defined: their names and decorations go too
string(FIND "${func}" " = OpLabel" lab)
string(SUBSTRING "${func}" ${lab} -1 body)
string(REGEX MATCHALL "%[A-Za-z0-9_]+ = " defs "${body}")
foreach(d IN LISTS defs)
    string(REGEX REPLACE "^%([A-Za-z0-9_]+) = $" "\\1" id "${d}")
    # until none is left (a match takes the newline that starts the next line)
    set(prev "")
    while(NOT prev STREQUAL head)
        set(prev "${head}")
        string(REGEX REPLACE "\n *(OpName|OpMemberName|OpDecorate|OpDecorateString|OpMemberDecorate) %${id}( [^\n]*)?\n" "\n" head "${head}")
    endwhile()
endforeach()

# the capabilities after the module's, the extension before its others
string(REGEX MATCH "^( *OpCapability [A-Za-z0-9_]+\n)+" caps "${head}")
if(NOT caps)
    message(FATAL_ERROR "kite_spirv_dot.cmake: ${IN} does not start with OpCapability")
endif()
string(LENGTH "${caps}" ncaps)
string(SUBSTRING "${head}" ${ncaps} -1 after)
set(head "${caps}OpCapability DotProductKHR\nOpCapability DotProductInput4x8BitPackedKHR\nOpExtension \"SPV_KHR_integer_dot_product\"\n${after}")

get_filename_component(outdir ${OUT} DIRECTORY)
set(asm ${OUT}.spvasm)
set(bin ${OUT}.spv)
file(WRITE ${asm} "${head}${newfunc}${rest}")
execute_process(COMMAND ${AS} --target-env ${ENV} ${asm} -o ${bin} ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kite_spirv_dot.cmake: ${AS} ${asm} failed: ${err}")
endif()
execute_process(COMMAND ${VAL} --target-env ${ENV} ${bin} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kite_spirv_dot.cmake: ${VAL} rejects ${bin} (from ${IN}): ${out}${err}")
endif()

# the words as a C array (little-endian bytes of the file)
file(READ ${bin} hex HEX)
string(LENGTH "${hex}" nhex)
math(EXPR rem "${nhex} % 8")
if(NOT rem EQUAL 0 OR nhex EQUAL 0)
    message(FATAL_ERROR "kite_spirv_dot.cmake: ${bin} is not a whole number of words")
endif()
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1,\n" words "${hex}")
file(WRITE ${OUT} "// generated by cmake/kite_spirv_dot.cmake from ${IN}\nconst uint32_t ${VAR}[] = {\n${words}};\n")
file(REMOVE ${asm})
