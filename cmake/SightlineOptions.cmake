option(SIGHTLINE_BUILD_GUI "Build the Qt 6 GUI (sightline-ui)" ON)
option(SIGHTLINE_BUILD_TESTS "Build tests, test clients and benchmarks" ON)
option(SIGHTLINE_WITH_CUDA "Look for the CUDA toolkit and build CUDA capture" ON)
option(SIGHTLINE_WERROR "Treat compiler warnings as errors" OFF)
option(SIGHTLINE_FUZZ "Build the libFuzzer targets of tests/fuzz (clang; everything with ASan and UBSan)" OFF)
set(SIGHTLINE_SANITIZE "" CACHE STRING "Sanitizers to build with: empty, address, undefined or address,undefined")

# Warnings for our own targets only (third-party headers are system includes).
add_library(sightline_warnings INTERFACE)
target_compile_options(sightline_warnings INTERFACE -Wall -Wextra -Wpedantic
                       $<IF:$<CXX_COMPILER_ID:GNU>,-Wshadow=local,-Wshadow-uncaptured-local>
                       -Wnon-virtual-dtor -Wno-missing-field-initializers)
if(SIGHTLINE_WERROR)
  target_compile_options(sightline_warnings INTERFACE -Werror)
endif()

if(SIGHTLINE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SIGHTLINE_FUZZ needs clang (CC=clang CXX=clang++): libFuzzer is clang's")
  endif()
  set(SIGHTLINE_SANITIZE "address,undefined")
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(SIGHTLINE_SANITIZE)
  add_compile_options(-fsanitize=${SIGHTLINE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${SIGHTLINE_SANITIZE})
endif()
