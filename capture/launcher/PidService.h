#pragma once
// The launcher's side of capture/common/PidQuery.h: a thread that answers traced processes in
// other PID namespaces with their pid (and parent's) as the launcher sees them, read from the
// connection's peer credentials, which the kernel gives in the reader's namespace. Without it a
// program under `unshare --pid --fork --mount-proc` is recorded as "pid 1".
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace sl::capture {

class PidService {
public:
    // Listens on <sessionDir>/pids.sock and on the abstract address of PidQuery.h. Not running
    // (and the program's processes then fall back to /proc) when neither can be made; why is in
    // problem().
    explicit PidService(const std::string& sessionDir);
    ~PidService();
    PidService(const PidService&) = delete;
    PidService& operator=(const PidService&) = delete;

    bool running() const { return m_thread.joinable(); }
    const std::string& problem() const { return m_problem; }
    // The device of the launcher's /proc (st_dev of its /proc/self link), for the program's
    // environment (env::kProcDevice): a process whose /proc is another asks.
    const std::string& procDevice() const { return m_procDevice; }
    uint64_t answered() const { return m_answered.load(); }

private:
    void serve();
    void answer(int fd);

    std::string m_path, m_procDevice, m_problem;
    int m_listen = -1;          // <session dir>/pids.sock
    int m_listenAbstract = -1;  // the abstract address (PidQuery.h)
    int m_stop[2] = {-1, -1};
    std::atomic<uint64_t> m_answered{0};
    std::thread m_thread;
};

}  // namespace sl::capture
