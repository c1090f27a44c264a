#include "model/merge/ReportRank.h"

#include <cctype>
#include <filesystem>
#include <set>

namespace sl {

namespace {

// A whole non-negative decimal number, or -1.
int parseRank(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    if (s.empty() || s.size() > 9) return -1;
    int v = 0;
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
        v = v * 10 + (c - '0');
    }
    return v;
}

// The last run of digits in the file name before its first dot ("rank12.rep" -> 12).
int rankFromFileName(const std::string& path) {
    std::string stem = std::filesystem::path(path).filename().string();
    stem = stem.substr(0, stem.find('.'));
    size_t end = stem.size();
    while (end > 0 && !std::isdigit(static_cast<unsigned char>(stem[end - 1]))) --end;
    size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(stem[begin - 1]))) --begin;
    return begin == end ? -1 : parseRank(std::string_view(stem).substr(begin, end - begin));
}

}  // namespace

const std::vector<std::string>& rankEnvironmentVariables() {
    static const std::vector<std::string> names = {"RANK",     "LOCAL_RANK", "OMPI_COMM_WORLD_RANK",
                                                   "PMI_RANK", "PMIX_RANK",  "SLURM_PROCID"};
    return names;
}

ReportRank rankOfReport(const Report& report, const std::string& path) {
    std::set<int> mpi;
    for (const Process& p : report.processes)
        if (p.mpiRank >= 0) mpi.insert(p.mpiRank);
    if (mpi.size() == 1) return {*mpi.begin(), "MPI rank", false};
    if (mpi.size() > 1) return {*mpi.begin(), "MPI ranks", true};
    for (const std::string& name : rankEnvironmentVariables())
        for (const auto& [key, value] : report.session.environment)
            if (key == name)
                if (int r = parseRank(value); r >= 0) return {r, name, false};
    if (int r = rankFromFileName(path); r >= 0) return {r, "file name", false};
    return {};
}

}  // namespace sl
