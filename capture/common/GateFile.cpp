#include "capture/common/GateFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "capture/common/GateState.h"

namespace sl::capture {

GateFile::~GateFile() {
    if (m_state) munmap(m_state, sizeof(GateState));
}

std::string GateFile::create(const std::string& sessionDir, uint32_t maxWindows,
                             bool shutdownAtEnd) {
    std::string path = sessionDir + "/" + kGateFileName;
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return "cannot create " + path + ": " + std::strerror(errno);
    if (ftruncate(fd, sizeof(GateState)) != 0) {
        std::string e = "cannot size " + path + ": " + std::strerror(errno);
        ::close(fd);
        return e;
    }
    void* p = mmap(nullptr, sizeof(GateState), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) return "cannot map " + path + ": " + std::strerror(errno);
    // The file is zero-filled: construct the atomics in place, then publish the header.
    auto* s = new (p) GateState{};
    s->maxWindows = maxWindows;
    s->shutdownAtEnd = shutdownAtEnd ? 1 : 0;
    s->control.store(0);
    s->version = kGateVersion;
    std::atomic_thread_fence(std::memory_order_release);
    s->magic = kGateMagic;
    m_state = s;
    return {};
}

std::vector<GateFile::Window> GateFile::windows(uint64_t* opened) const {
    std::vector<Window> out;
    if (!m_state) return out;
    uint64_t count = m_state->control.load() >> kGateCountShift;
    if (opened) *opened = count;
    for (uint64_t i = 0; i < count && i < kGateMaxWindows; ++i) {
        const GateWindow& w = m_state->windows[i];
        out.push_back({w.start.load(), w.end.load(), w.pid.load()});
    }
    return out;
}

}  // namespace sl::capture
