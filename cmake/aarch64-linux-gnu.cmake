# Cross-compiling for arm64 boards (RK3588 Debian images) with Debian's aarch64-linux-gnu toolchain against a
# separate arm64 sysroot (scripts/build-aarch64.sh makes it with mmdebstrap), never against :arm64 packages
# installed beside the host's. Tests run under qemu-user through CMAKE_CROSSCOMPILING_EMULATOR.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

# The toolchain file is read again for every try_compile: keep the sysroot choice in the environment/cache.
if(NOT NPUWB_SYSROOT)
  if(DEFINED ENV{NPUWB_SYSROOT})
    set(NPUWB_SYSROOT $ENV{NPUWB_SYSROOT})
  else()
    get_filename_component(NPUWB_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/../build/sysroot-arm64" ABSOLUTE)
  endif()
endif()
if(NOT EXISTS "${NPUWB_SYSROOT}/usr/include/aarch64-linux-gnu")
  message(FATAL_ERROR "arm64 sysroot not found at ${NPUWB_SYSROOT}: run scripts/build-aarch64.sh (or set NPUWB_SYSROOT)")
endif()
set(NPUWB_SYSROOT "${NPUWB_SYSROOT}" CACHE PATH "arm64 sysroot for the cross build")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES NPUWB_SYSROOT)

set(CMAKE_SYSROOT "${NPUWB_SYSROOT}")
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Libraries, headers and CMake packages only from the sysroot; programs (protoc) from the host.
set(CMAKE_FIND_ROOT_PATH "${NPUWB_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The host protoc matches the sysroot's libprotobuf (both Debian bookworm's 3.21).
set(Protobuf_PROTOC_EXECUTABLE /usr/bin/protoc CACHE FILEPATH "host protoc")

find_program(NPUWB_QEMU_AARCH64 qemu-aarch64-static)
if(NPUWB_QEMU_AARCH64)
  # -L: the arm64 dynamic loader and libraries come from the sysroot; build-tree paths (RPATH) fall through.
  set(CMAKE_CROSSCOMPILING_EMULATOR "${NPUWB_QEMU_AARCH64};-L;${NPUWB_SYSROOT}")
endif()
