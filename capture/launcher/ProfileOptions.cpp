#include "capture/launcher/ProfileOptions.h"

#include <unistd.h>

#include <csignal>

#include <cstdlib>
#include <filesystem>

#include "model/options/OptionParser.h"
#include "capture/launcher/HostName.h"
#include "model/rep/ReportName.h"

namespace sl::capture {

Status parseTraceList(const std::string& text, ProfileOptions& o) {
    const options::OptionDef* def = options::findOption("profile", "trace");
    auto checked = options::checkValue(*def, text);
    if (!checked) return makeError(checked.error());
    o.traceCuda = o.traceNvtx = o.traceOsrt = o.traceMpi = o.traceOpenmp = false;
    o.traceCublas = o.traceCudnn = o.traceNccl = false;
    // Values nsys knows that are not traced here were warned about by the parser.
    for (const auto& item : options::splitCommaList(*checked)) {
        if (item == "cuda" || item == "cuda-sw") o.traceCuda = true;
        if (item == "nvtx") o.traceNvtx = true;
        if (item == "osrt") o.traceOsrt = true;
        if (item == "mpi") o.traceMpi = true;
        if (item == "openmp") o.traceOpenmp = true;
        if (item == "cublas" || item == "cublas-verbose") o.traceCublas = true;
        if (item == "cudnn") o.traceCudnn = true;
        if (item == "nccl") o.traceNccl = true;
    }
    return {};
}

namespace {

// The value in the definition's canonical spelling, or the definition's one-line error.
Result<std::string> checked(std::string_view option, const std::string& text) {
    return options::checkValue(*options::findOption("profile", option), text);
}

}  // namespace

Status parseSample(const std::string& text, ProfileOptions& o) {
    auto v = checked("sample", text);
    if (!v) return makeError(v.error());
    o.cpuSampling = *v != "none";  // system-wide and xhv sample the tree (said in the definition)
    return {};
}

Status parseSamplingFrequency(const std::string& text, ProfileOptions& o) {
    auto v = checked("sampling-frequency", text);
    if (!v) return makeError(v.error());
    o.samplingFrequency = std::stoi(*v);
    return {};
}

Status parseBacktrace(const std::string& text, ProfileOptions& o) {
    auto v = checked("backtrace", text);
    if (!v) return makeError(v.error());
    o.backtraces = *v != "none";  // lbr walks frame pointers (the parser warned)
    o.dwarfBacktraces = *v == "dwarf";
    return {};
}

Result<int64_t> parseSeconds(const std::string& text, const char* option) {
    double v = 0;
    if (!options::parseDecimalSeconds(text, 1e7, &v))
        return makeError(std::string(option) + ": expected a number of seconds, got '" + text +
                         "'");
    return static_cast<int64_t>(v * 1e9);
}

Status parseKill(const std::string& text, ProfileOptions& o) {
    if (text == "sigterm" || text == "true")
        o.kill = KillMode::Sigterm;
    else if (text == "sigkill")
        o.kill = KillMode::Sigkill;
    else if (text == "none" || text == "false")
        o.kill = KillMode::None;
    else {
        char* end = nullptr;
        const long n = std::strtol(text.c_str(), &end, 10);
        if (text.empty() || *end || n < 1 || n > 64)
            return makeError("--kill: expected sigterm, sigkill, none or a signal number, got '" +
                             text + "'");
        o.kill = KillMode::Signal;
        o.killSignal = static_cast<int>(n);
    }
    return {};
}

int killSignalOf(const ProfileOptions& o) {
    switch (o.kill) {
        case KillMode::Sigterm:
            return SIGTERM;
        case KillMode::Sigkill:
            return SIGKILL;
        case KillMode::Signal:
            return o.killSignal;
        case KillMode::None:
            return 0;
    }
    return SIGTERM;
}

Status parseCaptureRange(const std::string& text, ProfileOptions& o) {
    if (text == "none")
        o.captureRange = CaptureRange::None;
    else if (text == "nvtx")
        o.captureRange = CaptureRange::Nvtx;
    else if (text == "cudaProfilerApi") {
#if SIGHTLINE_HAVE_CUDA_REPORT
        o.captureRange = CaptureRange::CudaProfilerApi;
        o.cuda.profilerRange = true;
#else
        return makeError(
            "--capture-range=cudaProfilerApi needs CUDA capture, which this build does not have");
#endif
    } else
        return makeError("--capture-range: expected none, nvtx or cudaProfilerApi, got '" + text +
                         "'");
    return {};
}

Status parseNvtxCapture(const std::string& text, ProfileOptions& o) {
    if (text.empty()) return makeError("--nvtx-capture: expected RANGE[@DOMAIN]");
    size_t at = text.rfind('@');
    if (at == std::string::npos) {
        o.nvtxRange = text;
        o.nvtxDomain.clear();
    } else {
        o.nvtxRange = text.substr(0, at);
        o.nvtxDomain = text.substr(at + 1);
    }
    if (o.nvtxRange.empty())
        return makeError("--nvtx-capture: the range name is empty in '" + text + "'");
    return {};
}

Status parseCaptureRangeEnd(const std::string& text, ProfileOptions& o) {
#if SIGHTLINE_HAVE_CUDA_REPORT
    if (Status s = cuda::parseRangeEnd(text, o.cuda); !s)
        return s;  // same values for cudaProfilerApi
#endif
    if (text == "stop")
        o.rangeEnd = CaptureRangeEnd::Stop;
    else if (text == "stop-shutdown")
        o.rangeEnd = CaptureRangeEnd::StopShutdown;
    else if (text == "repeat") {
        o.rangeEnd = CaptureRangeEnd::Repeat;
        o.repeatCount = 0;
    } else if (const bool shutdown = text.rfind("repeat-shutdown:", 0) == 0;
               shutdown || text.rfind("repeat:", 0) == 0) {
        char* end = nullptr;
        long n = std::strtol(text.c_str() + text.find(':') + 1, &end, 10);
        if (*end != 0 || n <= 0)
            return makeError("--capture-range-end: bad count in '" + text + "'");
        o.rangeEnd = shutdown ? CaptureRangeEnd::RepeatShutdown : CaptureRangeEnd::Repeat;
        o.repeatCount = static_cast<int>(n);
    } else
        return makeError(
            "--capture-range-end: expected stop, stop-shutdown, repeat, repeat:N or "
            "repeat-shutdown:N, got '" + text +
            "'");
    return {};
}

Status parseEnvVar(const std::string& text, ProfileOptions& o) {
    // nsys accepts "A=1,B=2" in one option; a value may not contain a comma then.
    size_t pos = 0;
    while (pos < text.size()) {
        size_t comma = text.find(',', pos);
        std::string item =
            text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            return makeError("--env-var: expected NAME=VALUE, got '" + item + "'");
        o.env.emplace_back(item.substr(0, eq), item.substr(eq + 1));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return {};
}

namespace {
// Whether the -o pattern holds the sequence %<k> (%% is a literal percent sign, skipped).
bool patternHas(const std::string& pattern, char k) {
    for (size_t i = 0; i + 1 < pattern.size(); ++i) {
        if (pattern[i] != '%') continue;
        if (pattern[i + 1] == k) return true;
        ++i;
    }
    return false;
}
}  // namespace

bool patternUsesPid(const std::string& pattern) {
    return patternHas(pattern, 'p');
}

std::vector<std::string> unsetPatternVariables(const std::string& pattern) {
    std::vector<std::string> unset;
    for (size_t i = 0; i + 2 < pattern.size(); ++i) {
        if (pattern[i] != '%') continue;
        if (pattern[i + 1] == 'q' && pattern[i + 2] == '{') {
            const size_t close = pattern.find('}', i + 3);
            if (close == std::string::npos) break;  // expandOutputPattern's error
            std::string name = pattern.substr(i + 3, close - i - 3);
            if (!std::getenv(name.c_str())) unset.push_back(std::move(name));
            i = close;
        } else {
            ++i;  // %%, %p, ...
        }
    }
    return unset;
}

bool numbersItsName(const std::string& pattern) {
    return (!pattern.empty() && pattern.back() == '/') || patternHas(pattern, 'n');
}

Result<std::string> expandOutputPattern(const std::string& pattern, int64_t rootPid) {
    std::string out;
    for (size_t i = 0; i < pattern.size(); ++i) {
        char c = pattern[i];
        if (c != '%') {
            out += c;
            continue;
        }
        if (i + 1 >= pattern.size())
            return makeError("--output: '%' at the end of '" + pattern + "'");
        char k = pattern[++i];
        if (k == '%')
            out += '%';
        else if (k == 'p')
            out += std::to_string(rootPid);
        else if (k == 'n')
            out += "\x01";  // replaced below by the first number whose file is free
        else if (k == 'h')
            out += hostName();
        else if (k == 'q') {
            if (i + 1 >= pattern.size() || pattern[i + 1] != '{')
                return makeError("--output: %q needs {NAME} in '" + pattern + "'");
            size_t close = pattern.find('}', i + 2);
            if (close == std::string::npos)
                return makeError("--output: unclosed %q{ in '" + pattern + "'");
            std::string name = pattern.substr(i + 2, close - i - 2);
            const char* v = std::getenv(name.c_str());
            out += v ? v : "";
            i = close;
        } else
            return makeError(std::string("--output: unknown sequence '%") + k + "' in '" + pattern +
                             "'");
    }
    if (out.empty()) return makeError("--output: the name is empty");
    // A directory (-o outd/): the default name in it, report%n (it wrote outd/.rep, a hidden
    // file, before).
    if (out.back() == '/') {
        while (out.size() > 1 && out.back() == '/') out.pop_back();
        out += (out == "/" ? "" : "/") + std::string("report\x01");
    }
    out = reportFileName(out);  // X.nsys-rep of nsys scripts kept as given (model/rep/ReportName.h)
    if (out.find('\x01') == std::string::npos) return out;
    for (int n = 1; n < 1'000'000; ++n) {
        std::string candidate = out;
        for (size_t at; (at = candidate.find('\x01')) != std::string::npos;)
            candidate.replace(at, 1, std::to_string(n));
        std::error_code ec;
        // A symbolic link takes the name too, dangling or not (it is never replaced).
        if (!std::filesystem::exists(std::filesystem::symlink_status(candidate, ec))) return candidate;
    }
    return makeError("--output: no free number for %n in '" + pattern + "'");
}

std::string nextDefaultReportName(const std::string& dir) {
    // nsys's default name, report%n.
    auto name = expandOutputPattern((dir == "." ? "" : dir + "/") + "report%n", 0);
    return name ? *name : "report1.rep";
}

std::string siblingName(const std::string& path, int index) {
    const std::string_view ext = reportExtensionOf(path);
    return path.substr(0, path.size() - ext.size()) + "-" + std::to_string(index) +
           std::string(ext.empty() ? ".rep" : ext);
}

std::string numberedName(const std::string& path, int index) {
    if (index <= 0) return path;
    const std::string_view ext = reportExtensionOf(path);
    return path.substr(0, path.size() - ext.size()) + "." + std::to_string(index) +
           std::string(ext.empty() ? ".rep" : ext);
}

}  // namespace sl::capture
