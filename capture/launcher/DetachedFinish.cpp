#include "capture/launcher/DetachedFinish.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace sl::capture {
namespace {

// A field as "<length>:<bytes>" (a path or message may hold any byte, newlines included).
void putField(std::string& out, const std::string& s) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
}

bool getField(const std::string& in, size_t& at, std::string& out) {
    const size_t colon = in.find(':', at);
    if (colon == std::string::npos || colon == at) return false;
    size_t length = 0;
    for (size_t i = at; i < colon; ++i) {
        if (in[i] < '0' || in[i] > '9') return false;
        length = length * 10 + static_cast<size_t>(in[i] - '0');
        if (length > in.size()) return false;
    }
    if (colon + 1 + length > in.size()) return false;
    out = in.substr(colon + 1, length);
    at = colon + 1 + length;
    return true;
}

bool writeAll(int fd, const std::string& s) {
    size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

std::string encodeResult(const Result<ProfileResult>& r) {
    std::string out;
    if (!r) {
        putField(out, "error");
        putField(out, r.error());
        return out;
    }
    putField(out, "ok");
    putField(out, std::to_string(r->exitCode));
    putField(out, std::to_string(r->signal));
    putField(out, std::to_string(r->reports.size()));
    for (const auto& path : r->reports) putField(out, path);
    return out;
}

Result<ProfileResult> decodeResult(const std::string& text) {
    size_t at = 0;
    std::string kind;
    const auto bad = [] { return makeError("the report writer handed back an unreadable result"); };
    if (!getField(text, at, kind)) return bad();
    if (kind == "error") {
        std::string message;
        if (!getField(text, at, message)) return bad();
        return makeError(message);
    }
    if (kind != "ok") return bad();
    std::string exitCode, signal, count;
    if (!getField(text, at, exitCode) || !getField(text, at, signal) || !getField(text, at, count))
        return bad();
    ProfileResult r;
    try {
        r.exitCode = std::stoi(exitCode);
        r.signal = std::stoi(signal);
        const unsigned long n = std::stoul(count);
        for (unsigned long i = 0; i < n; ++i) {
            std::string path;
            if (!getField(text, at, path)) return bad();
            r.reports.push_back(std::move(path));
        }
    } catch (const std::exception&) {
        return bad();
    }
    return r;
}

Result<ProfileResult> finishOutOfReach(const std::function<Result<ProfileResult>()>& finish,
                                       const std::function<void()>& keptByChild,
                                       const std::function<void()>& endInChild) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return finish();
    std::fflush(nullptr);  // nothing buffered is written twice
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return finish();
    }
    if (pid == 0) {
        ::close(fds[0]);
        ::setsid();  // out of the job's process group and session: its kill does not reach here
        const Result<ProfileResult> r = finish();
        endInChild();
        writeAll(fds[1], encodeResult(r));
        std::fflush(nullptr);
        // Not exit(): the parent's objects (its threads' guards, the session it no longer owns)
        // are not this process's to end.
        ::_exit(0);
    }
    ::close(fds[1]);
    keptByChild();
    std::string text;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;  // a signal for the parent: the child goes on
        if (n <= 0) break;
        text.append(buf, static_cast<size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (text.empty()) {
        std::ostringstream why;
        why << "the process making the report ended without a result (";
        if (WIFSIGNALED(status))
            why << "killed by signal " << WTERMSIG(status);
        else
            why << "exit " << WEXITSTATUS(status);
        why << ")";
        return makeError(why.str());
    }
    return decodeResult(text);
}

}  // namespace sl::capture
