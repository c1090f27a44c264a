#pragma once
// Reads the symbol tables of the modules CPU samples land in while the program still runs, on
// a thread of its own, so that naming the frames at the end is only lookups. At the end of a
// 1 s `make -j2` the launcher waited 3 ms for the parses (cc1's 26,305 symbols, libc, libisl);
// a PyTorch program's libraries take far longer. A module is also read nearer to when it ran:
// a build that rewrites a program it ran later in the same capture names the frames of the
// version that ran.
//
// The reader thread hands over module paths (want); nothing else is shared. take() waits for
// the queue to be done and hands the symbolizer over. Without a thread (a process or thread
// limit) want() does nothing and the parses are left to the end, as before.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "capture/launcher/FrameSymbolizer.h"

namespace sl::capture {

class SymbolPrefetch {
public:
    SymbolPrefetch();
    ~SymbolPrefetch();
    SymbolPrefetch(const SymbolPrefetch&) = delete;
    SymbolPrefetch& operator=(const SymbolPrefetch&) = delete;

    void want(const std::string& module);
    // Every module wanted so far read, and the thread ended (before a fork: the child would
    // wait for a thread it does not have).
    void finish();
    // finish(), then the symbolizer holding them (empty without a thread).
    std::unique_ptr<FrameSymbolizer> take();

private:
    void run();

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::string> m_queue;
    bool m_done = false;
    std::unique_ptr<FrameSymbolizer> m_symbolizer = std::make_unique<FrameSymbolizer>();
    std::thread m_thread;
};

}  // namespace sl::capture
