#pragma once
// Runs one piece of work at a time off the GUI thread, newest request wins: starting a job
// cancels (through its flag) and joins the previous one. The owner's destructor joins too, so
// a job may post results to its owner with QMetaObject::invokeMethod(owner, ..., Queued):
// the owner outlives the thread, and queued calls to a deleted object are dropped by Qt.
// Owned and used on the GUI thread.
#include <atomic>
#include <functional>
#include <memory>
#include <thread>

namespace sl::viewer {

class BackgroundJob {
public:
    BackgroundJob() = default;
    BackgroundJob(const BackgroundJob&) = delete;
    BackgroundJob& operator=(const BackgroundJob&) = delete;
    ~BackgroundJob() { cancelAndJoin(); }

    void start(std::function<void(const std::atomic<bool>& cancel)> work) {
        cancelAndJoin();
        m_cancel = std::make_shared<std::atomic<bool>>(false);
        m_thread = std::thread([flag = m_cancel, fn = std::move(work)] { fn(*flag); });
    }
    void cancelAndJoin() {
        if (m_cancel) m_cancel->store(true);
        if (m_thread.joinable()) m_thread.join();
    }

private:
    std::thread m_thread;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

}  // namespace sl::viewer
