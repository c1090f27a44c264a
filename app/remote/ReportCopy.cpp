#include "app/remote/ReportCopy.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "app/remote/ShellQuote.h"
#include "capture/launcher/ProfileOptions.h"
#include "model/util/JsonWriter.h"

namespace sl::remote {

namespace fs = std::filesystem;

std::string jsonString(const std::string& s) {
    std::string out;
    JsonWriter::escape(out, s);  // the one JSON string writer: escapes, valid UTF-8
    return out;
}

void emitProgressLine(int fd, const std::string& json) {
    if (fd < 0) return;
    const std::string line = json + "\n";
    (void)!write(fd, line.data(), line.size());
}

namespace {

// %h is the host the capture ran on; %% stays for expandOutputPattern.
std::string substituteHost(const std::string& pattern, const std::string& host) {
    std::string out;
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '%' && i + 1 < pattern.size()) {
            if (pattern[i + 1] == 'h') {
                for (char c : host) out += c == '%' ? std::string("%%") : std::string(1, c);
                ++i;
                continue;
            }
            out += pattern[i];
            out += pattern[++i];
            continue;
        }
        out += pattern[i];
    }
    return out;
}

std::string mib(uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return buf;
}

}  // namespace

Result<std::string> localReportName(const std::string& pattern, const std::string& remoteHost,
                                    int64_t remotePid, int index) {
    std::string name;
    if (pattern.empty()) {
        name = capture::nextDefaultReportName(".");
    } else {
        auto expanded = capture::expandOutputPattern(substituteHost(pattern, remoteHost), remotePid);
        if (!expanded) return std::move(expanded).takeError();
        name = *expanded;
    }
    return capture::numberedName(name, index);
}

Status checkLocalOutput(const std::string& pattern, bool forceOverwrite, const std::string& consequence) {
    const std::string then = " (" + consequence + ")";
    auto name = localReportName(pattern, "host", 1, 0);
    if (!name) return makeError("-o: " + name.error());
    fs::path dir = fs::path(*name).parent_path();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return makeError("cannot write the report " + *name + ": the directory " + dir.string() +
                         " does not exist" + then);
    if (access(dir.c_str(), W_OK) != 0)
        return makeError("cannot write the report " + *name + " in " + dir.string() + ": " +
                         std::strerror(errno) + then);
    const bool fixedName = !pattern.empty() && pattern.find('%') == std::string::npos;
    if (fixedName && !forceOverwrite && fs::exists(*name, ec))
        return makeError(*name + " exists; use --force-overwrite=true to replace it" + then);
    return {};
}

Status copyReport(SshSession& ssh, const std::string& remotePath, uint64_t size,
                  const std::string& localPath, const CopyOptions& o) {
    const std::string where = ssh.target().display() + ":" + remotePath;
    fs::path dest(localPath);
    fs::path dir = dest.parent_path().empty() ? fs::path(".") : dest.parent_path();
    std::string tmp = (dir / ("." + dest.filename().string() + ".part-XXXXXX")).string();
    const int fd = mkstemp(tmp.data());
    if (fd < 0) return makeError("cannot write in " + dir.string() + ": " + std::strerror(errno));
    auto child = ssh.start("cat " + shellQuote(remotePath), SpawnOptions{false, true, true, -1});
    if (!child) {
        close(fd), unlink(tmp.c_str());
        return std::move(child).takeError();
    }
    const bool tty = !o.quiet && isatty(2);
    uint64_t got = 0, shownAt = 0;
    std::string problem, sshSaid;
    char buf[1 << 16];
    pollfd fds[2] = {{child->out, POLLIN, 0}, {child->err, POLLIN, 0}};
    int open = 2;
    while (open > 0 && problem.empty()) {
        if (o.stop && o.stop->load()) {
            problem = "the copy was stopped";
            kill(child->pid, SIGTERM);
            break;
        }
        if (poll(fds, 2, 200) < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                close(fds[i].fd), fds[i].fd = -1, --open;
                continue;
            }
            if (i == 1) {
                sshSaid.append(buf, static_cast<size_t>(n));
                continue;
            }
            for (ssize_t done = 0; done < n;) {
                const ssize_t w = write(fd, buf + done, static_cast<size_t>(n - done));
                if (w < 0 && errno == EINTR) continue;
                if (w < 0) {
                    problem = "cannot write " + tmp + ": " + std::strerror(errno);
                    kill(child->pid, SIGTERM);
                    break;
                }
                done += w;
            }
            got += static_cast<uint64_t>(n);
            // About every 1% (and at the end): enough for a bar, few lines on a pipe.
            if (got - shownAt >= size / 100 + 1 || got == size) {
                shownAt = got;
                emitProgressLine(o.progressFd, "{\"event\":\"copy\",\"path\":" + jsonString(localPath) +
                                                   ",\"bytes\":" + std::to_string(got) +
                                                   ",\"total\":" + std::to_string(size) + "}");
                if (tty)
                    std::fprintf(stderr, "\rsightline: copying the report: %3d%% (%s of %s MiB)",
                                 size ? static_cast<int>(got * 100 / size) : 100, mib(got).c_str(),
                                 mib(size).c_str());
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0) close(f.fd);
    const int code = waitChild(child->pid);
    if (tty) std::fprintf(stderr, "\n");
    if (problem.empty() && code != 0)
        problem = code == SshSession::kSshError ? "the connection was lost" : "cat failed: " + sshSaid;
    if (problem.empty() && got != size)
        problem = "got " + std::to_string(got) + " of " + std::to_string(size) + " bytes";
    if (problem.empty() && fsync(fd) != 0) problem = "cannot write " + tmp + ": " + std::strerror(errno);
    close(fd);
    if (!problem.empty()) {
        unlink(tmp.c_str());
        return makeError("copying " + where + " failed (" + problem + "); the report is kept there");
    }
    // Without --force-overwrite, link() refuses an existing name where rename() would replace it.
    if (o.forceOverwrite ? rename(tmp.c_str(), localPath.c_str()) != 0
                         : link(tmp.c_str(), localPath.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        if (!o.forceOverwrite && errno == EEXIST)
            return makeError(localPath + " appeared during the capture; the report is kept as " + tmp +
                             " (and there: " + where + ")");
        unlink(tmp.c_str());
        return makeError("cannot write " + localPath + ": " + why + "; the report is kept at " + where);
    }
    if (!o.forceOverwrite) unlink(tmp.c_str());
    chmod(localPath.c_str(), 0644 & ~[] { mode_t m = umask(0); umask(m); return m; }());
    if (!o.quiet)
        std::fprintf(stderr, "sightline: copied %s -> %s (%s MiB)\n", where.c_str(), localPath.c_str(),
                     mib(size).c_str());
    return {};
}

}  // namespace sl::remote
