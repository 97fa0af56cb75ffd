# aarch64 Linux with Debian's cross compiler (apt: g++-aarch64-linux-gnu).
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.toolchain.cmake
# Tests and tools run through qemu-user (apt: qemu-user) when it is installed:
# CMAKE_CROSSCOMPILING_EMULATOR is set to `qemu-aarch64 -L <sysroot>`, so
# ctest works as on a native build. QEMU_CPU=cortex-a53 in the environment
# picks a core without fp16 arithmetic and dot product.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(KITE_CROSS_TRIPLE aarch64-linux-gnu)
set(KITE_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
