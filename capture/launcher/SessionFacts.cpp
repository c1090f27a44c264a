#include "capture/launcher/SessionFacts.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "capture/common/RawReader.h"
#include "capture/launcher/ArenaSalvage.h"
#include "capture/launcher/SessionMerger.h"

namespace sl::capture {
namespace {

namespace fs = std::filesystem;

// Text values are written as "<length> <bytes>" so that any byte (spaces, newlines) survives.
void putText(std::ostream& o, const char* key, const std::string& v) {
    o << key << ' ' << v.size() << ' ' << v << '\n';
}
std::string getText(std::istream& in) {
    size_t n = 0;
    in >> n;
    in.get();  // the space
    std::string v(n, '\0');
    in.read(v.data(), static_cast<std::streamsize>(n));
    return v;
}

}  // namespace

bool writeSessionFacts(const AssemblyInput& in, const std::string& arenaDir) {
    const std::string path = in.sessionDir + "/" + kSessionFactsFile;
    const std::string tmp = path + ".tmp";
    {
        std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
        if (!o) return false;
        o << "sightline-session-facts 1\n";
        o << "start " << in.startMono << ' ' << in.startUtc << '\n';
        if (in.sessionEnd) o << "end " << in.sessionEnd << '\n';
        o << "root " << in.rootPid << '\n';
        if (in.launcherPid) o << "launcher " << in.launcherPid << '\n';
        if (in.writerPid) o << "writer " << in.writerPid << '\n';
        if (in.orphanReaper) o << "reaper " << in.orphanReaper << '\n';
        if (in.options) {
            const ProfileOptions& p = *in.options;
            o << "delay " << p.delayNs << "\nduration " << p.durationNs << '\n';
            for (const auto& a : p.command) putText(o, "arg", a);
            putText(o, "options", p.optionsText);
        }
        if (!arenaDir.empty()) putText(o, "arenas", arenaDir);
        if (!in.workingDirectory.empty()) putText(o, "cwd", in.workingDirectory);
        for (const auto& [pid, e] : in.exits)
            o << "exit " << pid << ' ' << e.first << ' ' << e.second << '\n';
        if (!o.flush()) return false;
    }
    return std::rename(tmp.c_str(), path.c_str()) == 0;
}

Result<SessionFacts> readSessionFacts(const std::string& sessionDir) {
    const std::string path = sessionDir + "/" + kSessionFactsFile;
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError(path + ": cannot open");
    std::string magic;
    int version = 0;
    in >> magic >> version;
    if (magic != "sightline-session-facts" || version != 1)
        return makeError(path + ": not a session facts file");
    SessionFacts f;
    std::string key;
    while (in >> key) {
        if (key == "start") {
            in >> f.startMono >> f.startUtc;
        } else if (key == "end") {
            in >> f.sessionEnd;
        } else if (key == "root") {
            in >> f.rootPid;
        } else if (key == "launcher") {
            in >> f.launcherPid;
        } else if (key == "writer") {
            in >> f.writerPid;
        } else if (key == "reaper") {
            in >> f.orphanReaper;
        } else if (key == "delay") {
            in >> f.delayNs;
        } else if (key == "duration") {
            in >> f.durationNs;
        } else if (key == "arg") {
            f.command.push_back(getText(in));
        } else if (key == "options") {
            f.optionsText = getText(in);
        } else if (key == "arenas") {
            f.arenaDir = getText(in);
        } else if (key == "cwd") {
            f.workingDirectory = getText(in);
        } else if (key == "exit") {
            int64_t pid = 0, t = 0;
            int st = 0;
            in >> pid >> t >> st;
            f.exits[pid] = {t, st};
        } else {
            std::string rest;
            std::getline(in, rest);  // a key of a newer writer
        }
        if (!in && !in.eof()) return makeError(path + ": damaged at key '" + key + "'");
    }
    return f;
}

bool isSessionDirectory(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return false;
    if (!SessionMerger::listStreams(dir).empty()) return true;
    // Every process wrote its stream at its end, beside its arena: the facts name where.
    auto f = readSessionFacts(dir);
    return f && !f->arenaDir.empty() && fs::is_directory(f->arenaDir, ec);
}

Result<std::vector<std::string>> reportFromSession(
    const std::string& sessionDir, const std::string& output,
    const std::function<void(const std::string&)>& say, bool quiet, bool force) {
    auto read = readSessionFacts(sessionDir);
    std::error_code ec;
    // Arenas still where the profiler left them (with the streams written at processes' ends),
    // else kept in the session directory. Salvage first: it may make streams.
    const std::string arenaDir = read && !read->arenaDir.empty() &&
                                         fs::is_directory(read->arenaDir, ec)
                                     ? read->arenaDir
                                     : std::string();
    // The session is read, never changed (it can be imported again, with other options): what
    // the arenas hold goes into copies of their streams in a scratch directory, removed at the
    // end. Before, the import appended to the streams, removed the arenas and said the capture
    // was left as it was; a second import found nothing.
    std::string scratch = (std::filesystem::temp_directory_path(ec) / "sightline-import-XXXXXX").string();
    if (!::mkdtemp(scratch.data()))
        return makeError("cannot make a scratch directory " + scratch + ": " + std::strerror(errno) +
                         " (set TMPDIR to a writable directory)");
    struct RemoveScratch {
        std::string path;
        ~RemoveScratch() {
            std::error_code e;
            fs::remove_all(path, e);
        }
    } removeScratch{scratch};
    SalvageSummary salvage = salvageArenas(sessionDir, arenaDir, false, scratch);
    for (const auto& p : salvage.problems) say("warning: " + p);
    auto streams = SessionMerger::listStreams(sessionDir, arenaDir, scratch);
    if (streams.empty()) return makeError(sessionDir + ": no raw streams (*.slraw) in it");
    SessionFacts f;
    if (read) {
        f = *read;
    } else {
        say("warning: " + read.error() + ": times and exits are taken from the streams alone");
        for (const auto& s : streams) {  // the earliest stream's start is the session's
            auto rs = RawStream::open(s);
            if (!rs) continue;
            const StreamHeader& h = rs->header();
            if (f.startMono == 0 || h.startMonotonicNs < f.startMono) {
                f.startMono = h.startMonotonicNs;
                f.startUtc = h.startUtcNs;
                f.rootPid = h.pid;
            }
        }
    }
    if (f.sessionEnd == 0) {
        // The profiler did not get to the end: the newest stream's last change ends the session.
        int64_t newest = 0;
        for (const auto& s : streams) {
            struct stat st {};
            if (::stat(s.c_str(), &st) == 0)
                newest = std::max<int64_t>(newest, st.st_mtim.tv_sec * 1'000'000'000ll +
                                                       st.st_mtim.tv_nsec);
        }
        f.sessionEnd = newest ? f.startMono + (newest - f.startUtc) : f.startMono;
    }
    ProfileOptions o;
    o.command = f.command;
    o.optionsText = f.optionsText;
    o.output = output;
    o.forceOverwrite = force;
    o.quiet = quiet;  // no progress bar
    o.delayNs = f.delayNs;
    o.durationNs = f.durationNs;
    o.cpuSampling = o.cpuMetrics = o.contextSwitches = false;
    AssemblyInput in;
    in.options = &o;
    in.sessionDir = sessionDir;
    in.arenaDir = arenaDir;
    in.copiesDir = scratch;
    in.startMono = f.startMono;
    in.startUtc = f.startUtc;
    in.sessionEnd = f.sessionEnd;
    in.rootPid = f.rootPid;
    in.launcherPid = f.launcherPid;
    in.orphanReaper = f.orphanReaper;
    in.workingDirectory = f.workingDirectory;
    in.exits = f.exits;
    in.outputPath = output;
    in.defaultName = output.empty();
    in.fromKeptSession = true;
    in.writeLosses = std::move(salvage.writeLosses);
    return assembleReports(in, say);
}

}  // namespace sl::capture
