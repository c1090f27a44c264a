#include "capture/launcher/ProgressChannel.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <sstream>

#include "model/util/JsonWriter.h"

namespace sl::capture {

namespace {

std::string line(const std::string& event, const auto& fill) {
    std::ostringstream s;
    JsonWriter w(s, false);
    w.beginObject();
    w.field("event", event);
    fill(w);
    w.endObject();
    s << "\n";
    return s.str();
}

}  // namespace

ProgressChannel::ProgressChannel(int fd) : m_fd(fd) {
    // The traced program must not inherit our channel.
    if (m_fd >= 0 && fcntl(m_fd, F_SETFD, FD_CLOEXEC) != 0) m_fd = -1;
}

void ProgressChannel::emit(const std::string& text) {
    if (m_fd < 0) return;
    // A reader that went away must not kill us with SIGPIPE mid-capture.
    struct sigaction ignore {}, old{};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &old);
    ssize_t n;
    do n = write(m_fd, text.data(), text.size());
    while (n < 0 && errno == EINTR);
    sigaction(SIGPIPE, &old, nullptr);
    if (n < 0 && (errno == EPIPE || errno == EBADF)) m_fd = -1;
}

void ProgressChannel::started(int64_t pid, const std::vector<std::string>& command) {
    emit(line("started", [&](JsonWriter& w) {
        w.field("pid", pid);
        w.key("command").beginArray();
        for (const auto& a : command) w.value(a);
        w.endArray();
    }));
}

void ProgressChannel::progress(int64_t seconds, size_t processes, uint64_t events) {
    emit(line("progress", [&](JsonWriter& w) {
        w.field("seconds", seconds);
        w.field("processes", static_cast<uint64_t>(processes));
        w.field("events", events);
    }));
}

void ProgressChannel::message(const std::string& text) {
    emit(line("message", [&](JsonWriter& w) { w.field("text", text); }));
}

void ProgressChannel::warning(const std::string& text) {
    emit(line("warning", [&](JsonWriter& w) { w.field("text", text); }));
}

void ProgressChannel::report(const std::string& path, uint64_t bytes) {
    emit(line("report", [&](JsonWriter& w) {
        w.field("path", path);
        w.field("bytes", bytes);
    }));
}

void ProgressChannel::finished(int exitCode) {
    emit(line("finished", [&](JsonWriter& w) { w.field("exit_code", exitCode); }));
}

void ProgressChannel::error(const std::string& message) {
    emit(line("error", [&](JsonWriter& w) { w.field("message", message); }));
}

}  // namespace sl::capture
