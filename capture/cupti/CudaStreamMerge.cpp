#include "capture/cupti/CudaStreamMerge.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "capture/cupti/CudaCorrelation.h"
#include "capture/cupti/CudaStreamFormat.h"
#include "capture/cupti/CudaStreamReader.h"
#include "capture/cupti/ReportBuilderSink.h"

namespace sl::cuda {

Result<CudaMergeSummary> mergeCudaStreams(const std::string& sessionDir, ReportBuilder& builder) {
    namespace fs = std::filesystem;
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(sessionDir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string n = it->path().filename().string();
        if (n.starts_with(kCudaStreamPrefix) && n.ends_with(kCudaStreamSuffix))
            files.push_back(it->path());
    }
    if (ec) return makeError(sessionDir + ": cannot list the session directory: " + ec.message());
    std::sort(files.begin(), files.end());
    CudaMergeSummary sum;
    for (const auto& f : files) {
        ReportBuilderSink sink(builder);
        auto r = readCudaStreamFile(f.string(), sink);
        if (!r) {
            builder.addDiagnostic("cuda.stream_unreadable", 1, r.error());
            continue;
        }
        builder.ensureProcess(r->pid);
        ++sum.files;
        sum.events += r->events;
    }
    if (sum.files > 0) {
        CorrelationSummary c = checkCorrelations(builder.report());
        sum.unmatchedGpuOps = c.unmatched;
        if (c.unmatched > 0)
            builder.addDiagnostic(
                "cuda.gpu_ops_without_api_call", static_cast<int64_t>(c.unmatched),
                "GPU operations whose CUDA API call was not captured (issued before tracing "
                "started, or its record was dropped)");
    }
    return sum;
}

}  // namespace sl::cuda
