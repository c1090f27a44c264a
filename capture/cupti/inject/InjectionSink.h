#pragma once
// Where the CUPTI injection library sends converted events: the capture data path of
// capture/common (ProcessWriter, one raw stream per process, merged by the launcher) when this
// build has it, else a CUDA stream file (CudaStreamFormat.h) in the session directory.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "capture/cupti/CudaSink.h"

namespace sl::cuda {

class InjectionSink : public CudaSink {
public:
    // Hands everything converted so far towards the stream file.
    virtual void flush() = 0;
    // The process is ending (exit): final flush; nothing is written afterwards.
    virtual void close() = 0;
    // The calling thread is the capture's own (our flushers): the report leaves it out of the
    // program's threads, as it does the writer thread.
    virtual void markToolThread(std::string_view name) = 0;
    // -c cudaProfilerApi: the session-wide capture switch (CaptureGate), so that OS runtime
    // calls, NVTX and CPU samples are recorded only inside the range too. openRange joins the
    // open window or opens one (several processes hold it together: it closes at the last
    // one's stop) and returns its number, 0 when none (no switch in this build or session, or
    // no more windows); closeRange returns true when it closed the window and the launcher
    // wants SIGUSR1 (stop-shutdown).
    virtual uint32_t openRange() { return 0; }
    virtual bool closeRange(uint32_t /*window*/) { return false; }
};

// Null (with `why` set) when there is no session to write to (SIGHTLINE_SESSION_DIR unset or
// not writable).
std::unique_ptr<InjectionSink> makeInjectionSink(int64_t pid, std::string& why);

}  // namespace sl::cuda
