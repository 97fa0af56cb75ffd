# The layer table. The order of the first block is ncnn's layer enumeration, so
# that type indices in binary .param.bin files match ncnn's. Entries whose
# reference source layer/<lowercase name>.cpp does not exist are skipped in the
# registry but keep their index. kite's own extensions start at 200.
set(KITE_LAYER_NAMES
    AbsVal ArgMax BatchNorm Bias BNLL Concat Convolution Crop Deconvolution
    Dropout Eltwise ELU Embed Exp Flatten InnerProduct Input Log LRN MemoryData
    MVN Pooling Power PReLU Proposal Reduction ReLU Reshape ROIPooling Scale
    Sigmoid Slice Softmax Split SPP TanH Threshold Tile RNN LSTM BinaryOp
    UnaryOp ConvolutionDepthWise Padding Squeeze ExpandDims Normalize Permute
    PriorBox DetectionOutput Interp DeconvolutionDepthWise ShuffleChannel
    InstanceNorm Clip Reorg YoloDetectionOutput Quantize Dequantize
    Yolov3DetectionOutput PSROIPooling ROIAlign Packing Requantize Cast
    HardSigmoid SELU HardSwish Noop PixelShuffle DeepCopy Mish
    StatisticsPooling Swish Gemm GroupNorm LayerNorm Softplus GRU
    MultiHeadAttention GELU Convolution1D Pooling1D ConvolutionDepthWise1D
    Convolution3D ConvolutionDepthWise3D Pooling3D MatMul Deconvolution1D
    DeconvolutionDepthWise1D Deconvolution3D DeconvolutionDepthWise3D Einsum
    DeformableConv2D GLU Fold Unfold GridSample CumulativeSum)

set(KITE_EXTENSION_LAYER_NAMES
    BatchToSpaceND SpaceToBatchND PSROIAlign)
set(KITE_EXTENSION_BASE_INDEX 200)

# x86 ISA levels, best first, with their compiler flags.
set(KITE_X86_ISAS avx512 avx2 avx sse2)
set(KITE_X86_FLAGS_avx512 -mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl -mfma -mf16c -mavx2)
set(KITE_X86_FLAGS_avx2 -mavx2 -mfma -mf16c)
set(KITE_X86_FLAGS_avx -mavx)
set(KITE_X86_FLAGS_sse2 -msse2)
set(KITE_X86_ENUM_avx512 CPU_ISA_AVX512)
set(KITE_X86_ENUM_avx2 CPU_ISA_AVX2)
set(KITE_X86_ENUM_avx CPU_ISA_AVX)
set(KITE_X86_ENUM_sse2 CPU_ISA_SSE2)

# VNNI levels: the avx512 / avx2 builds of the CPU drivers of the layers in
# KITE_X86_VNNI_LAYERS get a second registry row at CPU_ISA_AVX512VNNI /
# CPU_ISA_AVXVNNI, ahead of their own (same creator: the driver reads its
# Layer::isa and then runs the vpdpbusd int8 kernels of
# layer/x86/conv_int8_vnni_x86.cpp, compiled once more per VNNI level in
# namespace kite::<vnni level>). Tests force either row, so both run here.
set(KITE_X86_VNNI_LAYERS Convolution InnerProduct)
set(KITE_X86_VNNI_avx512 avx512vnni)
set(KITE_X86_VNNI_avx2 avxvnni)
set(KITE_X86_FLAGS_avx512vnni ${KITE_X86_FLAGS_avx512} -mavx512vnni)
set(KITE_X86_FLAGS_avxvnni ${KITE_X86_FLAGS_avx2} -mavxvnni)
set(KITE_X86_ENUM_avx512vnni CPU_ISA_AVX512VNNI)
set(KITE_X86_ENUM_avxvnni CPU_ISA_AVXVNNI)
if(KITE_TARGET_X86)
    include(CheckCXXCompilerFlag)
    check_cxx_compiler_flag(-mavx512vnni KITE_CXX_HAS_AVX512VNNI)
    check_cxx_compiler_flag(-mavxvnni KITE_CXX_HAS_AVXVNNI)
    set(KITE_X86_ENABLE_avx512vnni OFF)
    set(KITE_X86_ENABLE_avxvnni OFF)
    if(KITE_X86_ENABLE_avx512 AND KITE_CXX_HAS_AVX512VNNI)
        set(KITE_X86_ENABLE_avx512vnni ON)
    endif()
    if(KITE_X86_ENABLE_avx2 AND KITE_CXX_HAS_AVXVNNI)
        set(KITE_X86_ENABLE_avxvnni ON)
    endif()
endif()

# ARM levels, best first: arm82 (armv8.2-a fp16 arithmetic + dot product,
# aarch64 only) and neon (aarch64 base / armv7 -mfpu=neon, which the armv7
# toolchain file sets for the whole build). Chosen at run time from the
# CPU's reported features (src/cpu.cpp).
set(KITE_ARM_ISAS arm82 neon)
set(KITE_ARM_FLAGS_arm82 -march=armv8.2-a+fp16+dotprod)
set(KITE_ARM_FLAGS_neon "")
set(KITE_ARM_ENUM_arm82 CPU_ISA_ARM82)
set(KITE_ARM_ENUM_neon CPU_ISA_NEON)
set(KITE_ARM_ENABLE_neon ON)
set(KITE_ARM_ENABLE_arm82 OFF)
if(KITE_TARGET_ARM AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$" AND KITE_RUNTIME_CPU)
    set(KITE_ARM_ENABLE_arm82 ON)
endif()

# The layer types to build (ncnn's WITH_LAYER_xxx): empty builds every layer;
# a list (-DKITE_LAYERS="Input;Convolution;ReLU;...") builds only those, all
# of their CPU/GPU rows, for a smaller library. Type indices stay the same.
# Layers whose sources call functions of another layer's source bring that
# layer in (a shared library links with --no-undefined, so a missing entry
# here fails its link).
set(KITE_LAYER_DEPS_BatchToSpaceND SpaceToBatchND)
set(KITE_LAYER_DEPS_Bias BatchNorm)
set(KITE_LAYER_DEPS_Scale BatchNorm)
set(KITE_LAYER_DEPS_ConvolutionDepthWise Convolution)
set(KITE_LAYER_DEPS_ConvolutionDepthWise1D Convolution1D)
set(KITE_LAYER_DEPS_ConvolutionDepthWise3D Convolution3D)
set(KITE_LAYER_DEPS_DeconvolutionDepthWise Deconvolution)
set(KITE_LAYER_DEPS_DeconvolutionDepthWise1D Deconvolution1D)
set(KITE_LAYER_DEPS_DeconvolutionDepthWise3D Deconvolution3D)
set(KITE_LAYER_DEPS_GLU Softmax)
set(KITE_LAYER_DEPS_Reduction Softmax)
set(KITE_LAYER_DEPS_GRU RNN)
set(KITE_LAYER_DEPS_LSTM RNN)
set(KITE_LAYER_DEPS_Pooling Pooling3D)
set(KITE_LAYER_DEPS_Pooling1D Pooling3D)
set(KITE_LAYERS "" CACHE STRING "layer types to build, ';'-separated (empty: every layer)")
set(KITE_LAYERS_BUILT ${KITE_LAYERS})
set(_i 0)
list(LENGTH KITE_LAYERS_BUILT _n)
while(_i LESS _n) # the list grows: dependencies of dependencies
    list(GET KITE_LAYERS_BUILT ${_i} name)
    if(NOT name IN_LIST KITE_LAYER_NAMES AND NOT name IN_LIST KITE_EXTENSION_LAYER_NAMES)
        message(FATAL_ERROR "KITE_LAYERS: unknown layer type '${name}'")
    endif()
    foreach(dep IN LISTS KITE_LAYER_DEPS_${name})
        if(NOT dep IN_LIST KITE_LAYERS_BUILT)
            list(APPEND KITE_LAYERS_BUILT ${dep})
        endif()
    endforeach()
    math(EXPR _i "${_i} + 1")
    list(LENGTH KITE_LAYERS_BUILT _n)
endwhile()

# kite_generate_layers(<out sources var>)
# Writes the registry tables into ${CMAKE_BINARY_DIR}/generated and returns the
# list of layer sources to compile (reference + per-ISA CPU driver wrappers).
function(kite_generate_layers out_srcs)
    set(srcs)
    # the per-ISA wrappers, collected per ISA and appended last, lowest ISA
    # first (see the note at the end of this function)
    foreach(isa IN LISTS KITE_X86_ISAS KITE_ARM_ISAS)
        set(isa_srcs_${isa})
    endforeach()
    set(decls "")
    set(rows "")
    set(names "")
    set(gen ${CMAKE_BINARY_DIR}/generated)
    file(MAKE_DIRECTORY ${gen}/layer_isa)
    set(index 0)
    set(all_names ${KITE_LAYER_NAMES})
    list(LENGTH KITE_LAYER_NAMES ncnn_count)
    set(ext_index ${KITE_EXTENSION_BASE_INDEX})
    foreach(name IN LISTS all_names KITE_EXTENSION_LAYER_NAMES)
        if(index LESS ncnn_count)
            set(typeindex ${index})
        else()
            set(typeindex ${ext_index})
            math(EXPR ext_index "${ext_index} + 1")
        endif()
        math(EXPR index "${index} + 1")
        string(TOLOWER ${name} lower)
        string(APPEND names "    {\"${name}\", ${typeindex}},\n")
        if(NOT EXISTS ${PROJECT_SOURCE_DIR}/layer/${lower}.cpp)
            continue()
        endif()
        if(KITE_LAYERS AND NOT name IN_LIST KITE_LAYERS_BUILT)
            continue() # left out by KITE_LAYERS: a param naming it reports an unknown type
        endif()
        list(APPEND srcs ${PROJECT_SOURCE_DIR}/layer/${lower}.cpp)
        # GPU drivers come first: the Net takes them when their backend is
        # switched on and a device is usable, else falls through to the CPU rows
        foreach(gpu IN ITEMS vulkan opencl)
            string(TOUPPER ${gpu} GPU)
            if(KITE_${GPU} AND EXISTS ${PROJECT_SOURCE_DIR}/layer/${gpu}/${lower}_${gpu}.cpp)
                list(APPEND srcs ${PROJECT_SOURCE_DIR}/layer/${gpu}/${lower}_${gpu}.cpp)
                string(APPEND decls "Layer* ${name}_${gpu}_layer_creator(void*);\n")
                string(APPEND rows "    {\"${name}\", ${typeindex}, BACKEND_${GPU}, CPU_ISA_NONE, ${name}_${gpu}_layer_creator},\n")
            endif()
        endforeach()
        # layer/cpu: one portable driver, compiled once per CPU ISA level of the
        # target (x86: avx512 avx2 avx sse2; ARM: arm82 neon) inside
        # namespace kite::<isa>, one registry row per level (BACKEND_CPU, its
        # CPU_ISA_* enum)
        if(KITE_TARGET_X86)
            set(cpu_fam X86)
        elseif(KITE_TARGET_ARM)
            set(cpu_fam ARM)
        else()
            set(cpu_fam "")
        endif()
        if(cpu_fam AND EXISTS ${PROJECT_SOURCE_DIR}/layer/cpu/${lower}_cpu.cpp)
            foreach(isa IN LISTS KITE_${cpu_fam}_ISAS)
                if(NOT KITE_${cpu_fam}_ENABLE_${isa})
                    continue()
                endif()
                set(wrapper ${gen}/layer_isa/${lower}_cpu_${isa}.cpp)
                set(vnni_def "")
                set(vnni "${KITE_X86_VNNI_${isa}}")
                if(cpu_fam STREQUAL "X86" AND vnni AND KITE_X86_ENABLE_${vnni} AND name IN_LIST KITE_X86_VNNI_LAYERS)
                    # the namespace of this level's VNNI kernels
                    set(vnni_def "#define KITE_X86_VNNI_NS ${vnni}\n")
                    string(APPEND rows "    {\"${name}\", ${typeindex}, BACKEND_CPU, ${KITE_X86_ENUM_${vnni}}, ${isa}::${name}_cpu_layer_creator},\n")
                endif()
                file(CONFIGURE OUTPUT ${wrapper} CONTENT
                    "// generated: ${name} CPU driver compiled for ${isa}\n#define KITE_ISA_NS ${isa}\n${vnni_def}#include \"${PROJECT_SOURCE_DIR}/layer/cpu/${lower}_cpu.cpp\"\n")
                set_source_files_properties(${wrapper} PROPERTIES COMPILE_OPTIONS "${KITE_${cpu_fam}_FLAGS_${isa}}")
                list(APPEND isa_srcs_${isa} ${wrapper})
                string(APPEND decls "namespace ${isa} { Layer* ${name}_cpu_layer_creator(void*); }\n")
                string(APPEND rows "    {\"${name}\", ${typeindex}, BACKEND_CPU, ${KITE_${cpu_fam}_ENUM_${isa}}, ${isa}::${name}_cpu_layer_creator},\n")
            endforeach()
        endif()
        string(APPEND decls "Layer* ${name}_layer_creator(void*);\n")
        string(APPEND rows "    {\"${name}\", ${typeindex}, BACKEND_CPU, CPU_ISA_NONE, ${name}_layer_creator},\n")
    endforeach()
    # the VNNI int8 kernels, once per enabled VNNI level (placed right after
    # their base level's wrappers below: avxvnni before avx512)
    foreach(isa IN LISTS KITE_X86_ISAS)
        set(vnni_srcs_${isa})
        set(vnni "${KITE_X86_VNNI_${isa}}")
        if(KITE_TARGET_X86 AND vnni AND KITE_X86_ENABLE_${isa} AND KITE_X86_ENABLE_${vnni})
            set(wrapper ${gen}/layer_isa/conv_int8_vnni_x86_${vnni}.cpp)
            file(CONFIGURE OUTPUT ${wrapper} CONTENT
                "// generated: int8 VNNI kernels compiled for ${vnni}\n#define KITE_ISA_NS ${vnni}\n#include \"${PROJECT_SOURCE_DIR}/layer/x86/conv_int8_vnni_x86.cpp\"\n")
            set_source_files_properties(${wrapper} PROPERTIES COMPILE_OPTIONS "${KITE_X86_FLAGS_${vnni}}")
            set(vnni_srcs_${isa} ${wrapper})
        endif()
    endforeach()
    # Inline functions and template instantiations that several translation
    # units emit (std::vector<int>'s constructor, std::to_string, ...) are
    # merged by the linker, which keeps the FIRST copy it meets. A copy compiled
    # with -mavx512f inside an AVX-512 wrapper must never be the one kept, or an
    # AVX2-only CPU dies with SIGILL in the AVX2 driver that calls it. So the
    # object order is: core and reference sources, then the wrappers from the
    # lowest ISA (the baseline, sse2 / neon) up to the highest; every shared
    # copy then comes from the lowest level that emits it. ctest isa_linkage
    # disassembles the result and checks this.
    foreach(fam IN ITEMS X86 ARM)
        set(order ${KITE_${fam}_ISAS})
        list(REVERSE order)
        foreach(isa IN LISTS order)
            list(APPEND srcs ${isa_srcs_${isa}} ${vnni_srcs_${isa}})
        endforeach()
    endforeach()
    file(CONFIGURE OUTPUT ${gen}/layer_declaration.inc CONTENT "${decls}")
    file(CONFIGURE OUTPUT ${gen}/layer_registry.inc CONTENT "${rows}")
    file(CONFIGURE OUTPUT ${gen}/layer_type_names.inc CONTENT "${names}")
    set(${out_srcs} ${srcs} PARENT_SCOPE)
endfunction()
