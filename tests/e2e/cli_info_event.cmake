# End-to-end: `sightline info REPORT --event TRACK:INDEX|NAME` prints one event's details with the
# formatter of the GUI's details panel (model/analysis/EventQueryDetails.h), as text and JSON;
# a track or event that is not there, or a name no event has, is one line on stderr and exit 1.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/../CliTestFunctions.cmake)

run(0 ${SIGHTLINE} generate -n 20000 -o ${WORK}/g.rep)
run(0 ${SIGHTLINE} info --help)
expect("${OUT}" "--event")
# The tracks are numbered as --event takes them: the first kernel track's number.
run(0 ${SIGHTLINE} info ${WORK}/g.rep)
string(REGEX MATCH "\n +([0-9]+)  CUDA kernels[^\n]*" line "${OUT}")
if(NOT line)
  message(FATAL_ERROR "no numbered kernel track in:\n${OUT}")
endif()
set(track ${CMAKE_MATCH_1})

run(0 ${SIGHTLINE} info ${WORK}/g.rep --event ${track}:0)
expect("${OUT}" "^Event ${track}:0\n")
expect("${OUT}" "\n  Kind +CUDA kernels\n")
expect("${OUT}" "\n  Start +[0-9.]+ [mun]?s \\([0-9]+ ns\\)\n")
expect("${OUT}" "\n  Grid +[0-9]+ x [0-9]+ x [0-9]+\n")
expect("${OUT}" "\n  Correlation ID +[0-9]+\n")
expect("${OUT}" "\n  Launched by +")
string(REGEX MATCH "\n  Name +([^\n]+)\n" name_line "${OUT}")
set(name "${CMAKE_MATCH_1}")

# By name: the first event so named, in time (the same details as its TRACK:INDEX).
run(0 ${SIGHTLINE} info ${WORK}/g.rep --event "${name}")
expect("${OUT}" "\n  Name +${name}\n")
expect("${OUT}" "\n  Grid +")

run(0 ${SIGHTLINE} info --format json ${WORK}/g.rep --event ${track}:0)
expect("${OUT}" "\"track\": *${track}")
expect("${OUT}" "\"field\": *\"Grid\"")

# Bad input: one line on stderr, exit 1, nothing on stdout.
run(1 ${SIGHTLINE} info ${WORK}/g.rep --event 99999:0)
expect("${ERR}" "there is no track 99999")
expect_not("${OUT}" "Event")
run(1 ${SIGHTLINE} info ${WORK}/g.rep --event ${track}:999999999)
expect("${ERR}" "track ${track} has [0-9]+ events")
run(1 ${SIGHTLINE} info ${WORK}/g.rep --event no_such_kernel_anywhere)
expect("${ERR}" "no event is named 'no_such_kernel_anywhere'")
