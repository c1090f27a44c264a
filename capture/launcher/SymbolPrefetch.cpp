#include "capture/launcher/SymbolPrefetch.h"

#include <system_error>

namespace sl::capture {

SymbolPrefetch::SymbolPrefetch() {
    try {
        m_thread = std::thread([this] { run(); });
    } catch (const std::system_error&) {
        // No thread: the modules are read when the frames are named.
    }
}

SymbolPrefetch::~SymbolPrefetch() { take(); }

void SymbolPrefetch::want(const std::string& module) {
    if (!m_thread.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_queue.push_back(module);
    }
    m_changed.notify_one();
}

void SymbolPrefetch::finish() {
    if (!m_thread.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_done = true;
    }
    m_changed.notify_one();
    m_thread.join();
}

std::unique_ptr<FrameSymbolizer> SymbolPrefetch::take() {
    finish();
    return m_symbolizer ? std::move(m_symbolizer) : std::make_unique<FrameSymbolizer>();
}

void SymbolPrefetch::run() {
    for (;;) {
        std::string module;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_changed.wait(lock, [this] { return m_done || !m_queue.empty(); });
            if (m_queue.empty()) return;  // done, and every module read
            module = std::move(m_queue.front());
            m_queue.pop_front();
        }
        m_symbolizer->preload(module);  // outside the lock: want() never waits for a parse
    }
}

}  // namespace sl::capture
