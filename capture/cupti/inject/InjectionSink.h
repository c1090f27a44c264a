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
};

// Null (with `why` set) when there is no session to write to (SIGHTLINE_SESSION_DIR unset or
// not writable).
std::unique_ptr<InjectionSink> makeInjectionSink(int64_t pid, std::string& why);

}  // namespace sl::cuda
