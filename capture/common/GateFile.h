#pragma once
// The launcher's side of the capture switch (GateState.h): creates <session>/capture.gate before
// the program starts (off, with the window limit of --capture-range-end) and reads the windows
// the traced processes opened and closed once the program tree has ended. Launcher thread only.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sl::capture {

struct GateState;

class GateFile {
public:
    GateFile() = default;
    ~GateFile();
    GateFile(const GateFile&) = delete;
    GateFile& operator=(const GateFile&) = delete;

    // maxWindows: 1 for stop and stop-shutdown, N for repeat:N, 0 for repeat. Returns an empty
    // string on success, else why the file could not be made.
    std::string create(const std::string& sessionDir, uint32_t maxWindows, bool shutdownAtEnd);
    bool valid() const { return m_state != nullptr; }

    struct Window {
        int64_t start = 0;
        int64_t end = 0;  // 0: still open when the program ended
        int64_t pid = 0;  // the process whose range opened it
    };
    // The windows opened so far, in order, and how many were opened in all (more than the
    // list holds when past kGateMaxWindows).
    std::vector<Window> windows(uint64_t* opened = nullptr) const;

private:
    GateState* m_state = nullptr;
};

}  // namespace sl::capture
