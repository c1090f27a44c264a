# libsightline-cuda.so (included from capture/cupti/CMakeLists.txt when CUPTI is found).
# Hidden visibility: it exports InitializeInjection only. CUPTI is linked dynamically (from the
# toolkit it was built against, found through RPATH); libstdc++ is static so the module does not
# clash with the program's C++ runtime. No Qt, no SQLite, no zstd.
set(_inject ${CMAKE_CURRENT_SOURCE_DIR}/inject)
if(TARGET sl_capture_common)
  set(_sink ${_inject}/CaptureSink.cpp)
  set(_sinkLib sl_capture_common)
else()
  set(_sink ${_inject}/StreamFileSink.cpp)
  set(_sinkLib "")
  message(STATUS "Sightline: capture/common not in this build: libsightline-cuda writes CUDA stream files")
endif()
add_library(sightline-cuda MODULE ${_inject}/CuptiInjection.cpp ${_sink})
target_link_libraries(sightline-cuda PRIVATE sl_cupti_convert sl_cuda_stream ${_sinkLib} CUDA::cupti
                      ${CMAKE_DL_LIBS} Threads::Threads sightline_warnings)
get_filename_component(_cuptiDir "${CUDA_cupti_LIBRARY}" DIRECTORY)
set_target_properties(sightline-cuda PROPERTIES
  PREFIX "lib" CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib/sightline
  BUILD_WITH_INSTALL_RPATH ON INSTALL_RPATH "${_cuptiDir}"
  LINK_DEPENDS ${_inject}/exports.map)
target_link_options(sightline-cuda PRIVATE -static-libstdc++ -static-libgcc -Wl,--exclude-libs,ALL
                    -Wl,-z,nodelete -Wl,--no-undefined -Wl,--version-script=${_inject}/exports.map)
# `sightline profile` finds the module next to libsightline-inject.so (launcher is configured first).
if(TARGET sl_launcher)
  add_dependencies(sl_launcher sightline-cuda)
endif()
install(TARGETS sightline-cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/sightline COMPONENT cli)
