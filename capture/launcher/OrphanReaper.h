#pragma once
// Which process the kernel gives this process's orphans to: init of its PID namespace, or the
// nearest ancestor that made itself a subreaper (systemd --user, tini, a CI runner). The
// launcher asks before it makes itself the traced tree's subreaper, so that a traced orphan's
// getppid() can answer what it would without the profiler (capture/inject/ParentInterpose.cpp).
#include <sys/types.h>

namespace sl::capture {

// Learnt from a probe: a forked child forks a grandchild and exits; the grandchild's new parent
// is the answer. About 0.3 ms. 0 when it cannot be learnt (no fork, no pipe, 100 ms passed).
pid_t orphanReaper();

}  // namespace sl::capture
