# Shared part of the Debian cross toolchain files; the including file sets
# KITE_CROSS_TRIPLE (compiler prefix and sysroot name) and KITE_CROSS_QEMU.
set(KITE_CROSS_SYSROOT /usr/${KITE_CROSS_TRIPLE} CACHE PATH "target libraries (Debian's cross sysroot)")

set(CMAKE_C_COMPILER ${KITE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${KITE_CROSS_TRIPLE}-g++)

# libraries and headers come from the target sysroot only, programs from the host
set(CMAKE_FIND_ROOT_PATH ${KITE_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
    find_program(KITE_CROSS_QEMU_PATH ${KITE_CROSS_QEMU})
    if(KITE_CROSS_QEMU_PATH)
        set(CMAKE_CROSSCOMPILING_EMULATOR ${KITE_CROSS_QEMU_PATH} -L ${KITE_CROSS_SYSROOT})
    endif()
endif()
