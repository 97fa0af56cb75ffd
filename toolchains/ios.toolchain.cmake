# iOS (arm64 devices) with Xcode's clang. Untested here (needs macOS).
#
#   cmake -S . -B build-ios -G Xcode -DCMAKE_TOOLCHAIN_FILE=toolchains/ios.toolchain.cmake
#
# Builds the static library only (no tools, tests or benchmark: an iOS app
# links libkite.a). Apple's clang has no OpenMP, so threads are off unless a
# libomp is provided (-DKITE_OPENMP=ON with OpenMP_* set by hand). The arm82
# layer rows are compiled in and chosen at run time (hw.optional.arm.FEAT_FP16
# and FEAT_DotProd; A11 and later have them).
set(CMAKE_SYSTEM_NAME iOS)
set(CMAKE_SYSTEM_PROCESSOR arm64)
if(NOT CMAKE_OSX_ARCHITECTURES)
    set(CMAKE_OSX_ARCHITECTURES arm64)
endif()
if(NOT CMAKE_OSX_DEPLOYMENT_TARGET)
    set(CMAKE_OSX_DEPLOYMENT_TARGET 12.0)
endif()
set(CMAKE_XCODE_ATTRIBUTE_ONLY_ACTIVE_ARCH NO)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(KITE_OPENMP OFF CACHE BOOL "use OpenMP for threads")
set(KITE_NO_EXCEPTIONS_RTTI ON CACHE BOOL "build the runtime with -fno-exceptions -fno-rtti")
set(KITE_BUILD_TOOLS OFF CACHE BOOL "build kiterun and the converters")
set(KITE_BUILD_BENCHMARK OFF CACHE BOOL "build benchkite")
set(KITE_BUILD_TESTS OFF CACHE BOOL "build the tests")
set(CMAKE_C_VISIBILITY_PRESET hidden)
set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)
