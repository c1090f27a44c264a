# End-to-end: the real `sightline` binary generates a report, describes it, and fails cleanly
# on bad input.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/../CliTestFunctions.cmake)

run(0 ${SIGHTLINE} --version)
if(NOT OUT MATCHES "^sightline [0-9]+\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "bad --version output: ${OUT}")
endif()
run(0 ${SIGHTLINE} --help)
run(0 ${SIGHTLINE} info --help)
run(0 ${SIGHTLINE} generate -n 20000 -o ${WORK}/g.rep)
run(0 ${SIGHTLINE} info ${WORK}/g.rep)
if(NOT OUT MATCHES "CUDA kernels" OR NOT OUT MATCHES "Diagnostics")
  message(FATAL_ERROR "info output lacks sections:\n${OUT}")
endif()
run(0 ${SIGHTLINE} info --format json --verify ${WORK}/g.rep)
if(NOT OUT MATCHES "\"by_kind\"")
  message(FATAL_ERROR "info json lacks by_kind:\n${OUT}")
endif()
# Refuses to overwrite without -f, accepts with it.
run(1 ${SIGHTLINE} generate -n 1000 -o ${WORK}/g.rep)
run(0 ${SIGHTLINE} generate -n 1000 -f -o ${WORK}/g.rep)
# Bad input: one line on stderr, non-zero exit.
run(1 ${SIGHTLINE} info ${WORK}/missing.rep)
if(NOT ERR MATCHES "no such file")
  message(FATAL_ERROR "missing file message: ${ERR}")
endif()
file(WRITE ${WORK}/text.rep "not a report")
run(1 ${SIGHTLINE} info ${WORK}/text.rep)
run(2 ${SIGHTLINE} info --bogus ${WORK}/g.rep)
run(2 ${SIGHTLINE} nosuchcommand)
# nsys's session commands: said to be nsys's, with what to run instead.
run(2 ${SIGHTLINE} launch -t cuda /bin/true)
if(NOT ERR MATCHES "nsys session command" OR NOT ERR MATCHES "sightline profile")
  message(FATAL_ERROR "launch message: ${ERR}")
endif()
# Output that cannot be written (a full disk: /dev/full) is an error, not exit 0 with the
# output lost.
if(EXISTS /dev/full)
  execute_process(COMMAND ${SIGHTLINE} info ${WORK}/g.rep OUTPUT_FILE /dev/full
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "writing the output failed")
    message(FATAL_ERROR "info into /dev/full exited ${rc}: ${err}")
  endif()
endif()
# The CLI installs on headless GPU servers: it must not link Qt.
execute_process(COMMAND ldd ${SIGHTLINE} OUTPUT_VARIABLE libs)
if(libs MATCHES "libQt")
  message(FATAL_ERROR "sightline links Qt:\n${libs}")
endif()
