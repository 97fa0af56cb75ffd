# armv7-a hard-float Linux with Debian's cross compiler (apt: g++-arm-linux-gnueabihf).
#   cmake -S . -B build-armv7 -DCMAKE_TOOLCHAIN_FILE=toolchains/arm-linux-gnueabihf.toolchain.cmake
# NEON is enabled for the whole build (-mfpu=neon -mfloat-abi=hard), as on every
# armv7 phone; tests run under qemu-arm when it is installed.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7-a)

set(KITE_CROSS_TRIPLE arm-linux-gnueabihf)
set(KITE_CROSS_QEMU qemu-arm)
set(CMAKE_C_FLAGS_INIT "-march=armv7-a -mfloat-abi=hard -mfpu=neon")
set(CMAKE_CXX_FLAGS_INIT "-march=armv7-a -mfloat-abi=hard -mfpu=neon")
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
