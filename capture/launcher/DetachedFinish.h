#pragma once
// Makes the report in a process the job's killer does not reach, when the capture was stopped
// from outside.
//
// Why: a job manager stops a job by signalling each process group it started, then kills
// what is left. Open MPI's mpirun sends SIGTERM to the group of each rank it started (under
// `mpirun -n N sightline profile ...` that group is the profiler and its rank) and SIGKILL to
// all of them as soon as the first has ended: the first profiler to finish its report had the
// others killed in the middle of theirs (their reports lost, `.rep.tmp-PID` files left;
// 1 in 4 runs of two ranks, most reports of a larger job). `timeout -k`, a batch system's grace
// period and a supervisor's kill timeout do the same to a profile that takes longer than they
// allow. The report is made from what the launcher holds in memory (CPU samples, context
// switches, the program's output) as well as from the session directory, so it cannot be left
// to a later `sightline import`.
//
// How: the launcher forks after the program has ended and its own threads are stopped; the
// child leaves the job's process group and session (setsid) and makes the report, then hands
// the result (or the error) to the parent through a pipe; the parent waits for it and ends as
// before. Killed meanwhile, the parent is gone and the child finishes alone: the report is
// written, its messages go where the parent's went (or nowhere, if that is closed).
#include <functional>

#include "capture/launcher/ProfileResult.h"
#include "model/core/Result.h"

namespace sl::capture {

// Runs `finish` in a child out of the caller's process group and session and returns its
// result; without a child to be had (a process limit), runs it here. The caller's threads must
// be stopped (the child has only the calling one). The child owns the session's files from the
// fork: `keptByChild` runs in the parent (which must not remove them), `endInChild` in the
// child after `finish` (what the caller's guards would have removed as they ended: the child
// ends without running them).
Result<ProfileResult> finishOutOfReach(const std::function<Result<ProfileResult>()>& finish,
                                       const std::function<void()>& keptByChild,
                                       const std::function<void()>& endInChild);

// The text a result is handed over as, and back (tested apart from the fork).
std::string encodeResult(const Result<ProfileResult>& r);
Result<ProfileResult> decodeResult(const std::string& text);

}  // namespace sl::capture
