#pragma once
// The stats reports, with nsys's names, columns and definitions. Each is a pure function of
// a report and options returning a Table (or a skipped Table saying which data is absent).
// The registry maps names, old nsys aliases and arguments ("cuda_gpu_kern_sum:base") to them.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/analysis/StatsCommon.h"
#include "model/core/Result.h"
#include "model/rep/RepReader.h"

namespace sl::analysis {

Table runCudaApiSum(const Report& r, const StatsOptions& o);
Table runCudaGpuKernSum(const Report& r, const StatsOptions& o);
Table runCudaGpuKernGbSum(const Report& r, const StatsOptions& o);
Table runCudaGpuMemTimeSum(const Report& r, const StatsOptions& o);
Table runCudaGpuMemSizeSum(const Report& r, const StatsOptions& o);
Table runCudaGpuSum(const Report& r, const StatsOptions& o);
Table runCudaApiTrace(const Report& r, const StatsOptions& o);
Table runCudaGpuTrace(const Report& r, const StatsOptions& o);
Table runCudaKernExecSum(const Report& r, const StatsOptions& o);
Table runCudaKernExecTrace(const Report& r, const StatsOptions& o);
Table runNvtxSum(const Report& r, const StatsOptions& o);
Table runNvtxPushPopTrace(const Report& r, const StatsOptions& o);
Table runNvtxPushPopSum(const Report& r, const StatsOptions& o);
Table runNvtxStartEndSum(const Report& r, const StatsOptions& o);
Table runCudaApiGpuSum(const Report& r, const StatsOptions& o);
Table runNvtxGpuProjSum(const Report& r, const StatsOptions& o);
Table runNvtxGpuProjTrace(const Report& r, const StatsOptions& o);
Table runNvtxKernSum(const Report& r, const StatsOptions& o);
Table runOsrtSum(const Report& r, const StatsOptions& o);
Table runCpuUtilSum(const Report& r, const StatsOptions& o);
Table runSampleSum(const Report& r, const StatsOptions& o);  // CpuSampleReports.cpp
Table runMpiEventSum(const Report& r, const StatsOptions& o);    // MpiReports.cpp
Table runMpiEventTrace(const Report& r, const StatsOptions& o);
Table runCublasApiSum(const Report& r, const StatsOptions& o);     // CudaLibReports.cpp
Table runCudnnApiSum(const Report& r, const StatsOptions& o);
Table runNcclApiSum(const Report& r, const StatsOptions& o);
Table runCudaLibApiTrace(const Report& r, const StatsOptions& o);
Table runOpenMpSum(const Report& r, const StatsOptions& o);      // OpenMpReports.cpp

using ReportFn = Table (*)(const Report&, const StatsOptions&);

struct ReportInfo {
    std::string_view name;
    std::string_view title;
    ReportFn run;
    bool isDefault;                // part of the set run when no -r is given
    std::string_view alias;        // the pre-2022 nsys name, "" if none
    std::string_view args;         // accepted arguments, comma-separated ("base,mangled")
    std::string_view description;  // one line for --help-reports
    KindSet reads;                 // the event kinds it reads: a report opened for it loads only these
    KindSet bare = {};             // of these it reads only start, end and name (when given no arguments)
    KindSet scans = {};            // of these it needs only per-name durations, which may come
                                   // from the file's chunks instead of loaded tracks (DurationScan.h)
};

std::span<const ReportInfo> allReports();
const ReportInfo* findReport(std::string_view nameOrAlias);
std::vector<const ReportInfo*> defaultReports();
// The kinds the reports named by `specs` ("name[:arg]") read, with NVTX ranges when
// --filter-nvtx needs them; unknown names read everything.
KindSet kindsReadBy(const std::vector<std::string>& specs, bool nvtxFilter);
// The kinds of which those reports read only start, end and name (ReadOptions::bare): a
// kind is bare when every report that reads it reads it bare.
KindSet bareKindsFor(const std::vector<std::string>& specs, bool nvtxFilter);
// The kinds those reports can all take from the file's chunks (each reads it only through
// per-name durations, given no arguments), so that a .rep need not load them (scanKinds).
KindSet scannedKindsFor(const std::vector<std::string>& specs, bool nvtxFilter);
// How a report is opened for those reports alone: their kinds, bare where they allow, and no
// level of detail (what `sightline stats` loads; rulesReadOptions is analyze's); the kinds in
// `scanned` are not loaded.
ReadOptions statsReadOptions(const std::vector<std::string>& specs, bool nvtxFilter, KindSet scanned = {});

// Runs "name[:arg[:arg]]". Unknown names and arguments are errors naming them.
Result<Table> runReport(const Report& r, const std::string& spec, const StatsOptions& o);

// The [start, end] of the `index`-th (0-based) range named `range` (in `domain` when given,
// else any domain), as --filter-nvtx selects it.
Result<std::pair<int64_t, int64_t>> nvtxFilterWindow(const Report& r, const std::string& range,
                                                     const std::string& domain, size_t index = 0);

}  // namespace sl::analysis
