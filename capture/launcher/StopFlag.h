#pragma once
// A stop request a polling thread sleeps on: it wakes at once when the request comes, not at
// the end of its poll period. The samplers poll every 10 ms or more; waking only on their period
// added their sleeps (5-16 ms each, one after the other) to every profile's end.
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace sl::capture {

class StopFlag {
public:
    void set() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_set = true;
        }
        m_cv.notify_all();
    }
    bool isSet() {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_set;
    }
    // Sleeps until `deadline` or the request; returns whether the request came.
    template <class Clock, class Duration>
    bool waitUntil(const std::chrono::time_point<Clock, Duration>& deadline) {
        std::unique_lock<std::mutex> lock(m_mutex);
        return m_cv.wait_until(lock, deadline, [this] { return m_set; });
    }
    template <class Rep, class Period>
    bool waitFor(const std::chrono::duration<Rep, Period>& d) {
        return waitUntil(std::chrono::steady_clock::now() + d);
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_set = false;
};

}  // namespace sl::capture
