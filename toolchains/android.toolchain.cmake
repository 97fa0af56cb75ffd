# Android: a wrapper around the NDK's own toolchain file with kite's
# recommended settings. Untested here (no NDK in this environment's CI).
#
#   cmake -S . -B build-android -G Ninja \
#       -DCMAKE_TOOLCHAIN_FILE=toolchains/android.toolchain.cmake \
#       -DANDROID_NDK=$ANDROID_NDK_HOME -DANDROID_ABI=arm64-v8a
#
# Defaults (each can be overridden with -D...): ANDROID_ABI arm64-v8a,
# ANDROID_PLATFORM android-24 (Vulkan 1.0 and AT_HWCAP detection available),
# ANDROID_STL c++_static, the runtime built with -fno-exceptions -fno-rtti
# (KITE_NO_EXCEPTIONS_RTTI), link-time optimisation (KITE_ANDROID_LTO),
# hidden visibility and section garbage collection, and no tools/tests.
# armeabi-v7a builds with NEON (every armv7 Android device since API 21 has it).

if(NOT ANDROID_NDK)
    foreach(var ANDROID_NDK_HOME ANDROID_NDK_ROOT ANDROID_NDK)
        if(DEFINED ENV{${var}})
            set(ANDROID_NDK $ENV{${var}})
            break()
        endif()
    endforeach()
endif()
if(NOT ANDROID_NDK OR NOT EXISTS "${ANDROID_NDK}/build/cmake/android.toolchain.cmake")
    message(FATAL_ERROR "toolchains/android.toolchain.cmake: set ANDROID_NDK (or the environment's ANDROID_NDK_HOME) "
                        "to an NDK folder containing build/cmake/android.toolchain.cmake (got '${ANDROID_NDK}')")
endif()

if(NOT ANDROID_ABI)
    set(ANDROID_ABI arm64-v8a)
endif()
if(NOT ANDROID_PLATFORM)
    set(ANDROID_PLATFORM android-24)
endif()
if(NOT ANDROID_STL)
    set(ANDROID_STL c++_static)
endif()
set(ANDROID_ARM_NEON ON)

include("${ANDROID_NDK}/build/cmake/android.toolchain.cmake")

# kite's options for a phone build (cache defaults: -D on the command line wins)
set(KITE_NO_EXCEPTIONS_RTTI ON CACHE BOOL "build the runtime with -fno-exceptions -fno-rtti")
set(KITE_BUILD_TOOLS OFF CACHE BOOL "build kiterun and the converters")
set(KITE_BUILD_TESTS OFF CACHE BOOL "build the tests")
set(KITE_ANDROID_LTO ON CACHE BOOL "link-time optimisation for the Android build")
if(KITE_ANDROID_LTO)
    set(CMAKE_INTERPROCEDURAL_OPTIMIZATION ON)
endif()
set(CMAKE_C_VISIBILITY_PRESET hidden)
set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)
string(APPEND CMAKE_C_FLAGS_INIT " -ffunction-sections -fdata-sections")
string(APPEND CMAKE_CXX_FLAGS_INIT " -ffunction-sections -fdata-sections")
string(APPEND CMAKE_SHARED_LINKER_FLAGS_INIT " -Wl,--gc-sections")
string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " -Wl,--gc-sections")
