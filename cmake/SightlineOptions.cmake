option(SIGHTLINE_BUILD_GUI "Build the Qt 6 GUI (sightline-ui)" ON)
option(SIGHTLINE_BUILD_TESTS "Build tests, test clients and benchmarks" ON)
option(SIGHTLINE_WITH_CUDA "Look for the CUDA toolkit and build CUDA capture" ON)
option(SIGHTLINE_WERROR "Treat compiler warnings as errors" OFF)
set(SIGHTLINE_SANITIZE "" CACHE STRING "Sanitizers to build with: empty, address, undefined or address,undefined")

# Warnings for our own targets only (third-party headers are system includes).
add_library(sightline_warnings INTERFACE)
target_compile_options(sightline_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local
                       -Wnon-virtual-dtor -Wno-missing-field-initializers)
if(SIGHTLINE_WERROR)
  target_compile_options(sightline_warnings INTERFACE -Werror)
endif()

if(SIGHTLINE_SANITIZE)
  add_compile_options(-fsanitize=${SIGHTLINE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${SIGHTLINE_SANITIZE})
endif()
