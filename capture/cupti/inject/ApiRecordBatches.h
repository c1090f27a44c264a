#pragma once
// API call records made by our own CUPTI callbacks (SIGHTLINE_CUDA_API_RECORDS=callbacks), kept
// per calling thread until a batch is full; full batches wait in a ready list for the module's
// converter thread. The callback runs inside the program's CUDA call: appending takes only the
// thread's own lock (contended only by a flush), and the program's thread never converts (so a
// signal that interrupts it never leaves the converter's lock taken).
//
// Locks, always in this order: the caller's converter lock, then `m_mutex`, then a slot's. A
// thread holds its slot lock only to append, and `m_mutex` only to move a full batch or to
// register or give back its slot, never both at once.
//
// A thread that ends gives its records to the orphans and its slot back; a CUDA call made after
// that by the same thread (a thread_local destructor that runs after ours) goes straight to the
// orphans. A forked child leaves everything alone: another thread of the parent may have held a
// lock at the fork.
// One instance per process and record type (a thread's slot is found through a thread_local).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace sl::cuda {

template <class Record>
class ApiRecordBatchesOf {
public:
    static constexpr size_t kBatch = 1024;

    // Appends to the calling thread's batch; true when a batch became ready for the converter.
    bool add(const Record& r) {
        ThreadState& t = t_state;
        if (t.ended) {
            std::lock_guard lock(m_mutex);
            m_orphans.push_back(r);
            return false;
        }
        Slot& s = slot(t);
        {
            std::lock_guard lock(s.mutex);
            s.records.push_back(r);
            if (s.records.size() < kBatch) return false;
        }
        // Full: moved to the ready list under both locks (in their order), so that a record is
        // always where takeAll looks, even when it runs in between.
        std::lock_guard lock(m_mutex);
        std::lock_guard slotLock(s.mutex);
        if (s.records.empty()) return false;  // taken meanwhile
        m_ready.emplace_back().swap(s.records);
        s.records.reserve(kBatch);
        return true;
    }

    // The full batches (the converter's work), oldest first.
    std::vector<std::vector<Record>> takeReady() {
        std::lock_guard lock(m_mutex);
        return std::exchange(m_ready, {});
    }

    struct Taken {
        std::vector<Record> records;
        int busySlots = 0;  // slots whose thread was inside an append (only when `trying`)
        bool complete = true;
    };
    // Everything: ready batches, every thread's records so far, those of threads that ended.
    // `trying` (a fatal signal's flush, which may have interrupted a thread holding one of the
    // locks): waits for `m_mutex` at most `wait` and skips slots that are busy.
    Taken takeAll(bool trying = false,
                  std::chrono::milliseconds wait = std::chrono::milliseconds(200)) {
        Taken t;
        std::unique_lock lock(m_mutex, std::defer_lock);
        if (!trying) {
            lock.lock();
        } else {
            const auto until = std::chrono::steady_clock::now() + wait;
            while (!lock.try_lock()) {
                if (std::chrono::steady_clock::now() >= until) {
                    t.complete = false;
                    return t;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
        for (auto& batch : m_ready) t.records.insert(t.records.end(), batch.begin(), batch.end());
        m_ready.clear();
        t.records.insert(t.records.end(), m_orphans.begin(), m_orphans.end());
        m_orphans.clear();
        for (Slot* s : m_slots) {
            std::unique_lock slotLock(s->mutex, std::defer_lock);
            if (!trying) {
                slotLock.lock();
            } else if (!slotLock.try_lock()) {
                ++t.busySlots;
                continue;
            }
            t.records.insert(t.records.end(), s->records.begin(), s->records.end());
            s->records.clear();
        }
        return t;
    }

private:
    struct Slot {
        std::mutex mutex;
        std::vector<Record> records;
    };
    // Registered with the thread's first record; its destructor (at thread exit) gives the slot
    // back. The state lives in trivially destructible thread_locals, which stay readable after
    // the thread's destructors have run.
    struct ThreadState {
        Slot* slot = nullptr;
        bool ended = false;
    };
    static inline thread_local ThreadState t_state;
    struct Holder {
        ApiRecordBatchesOf* owner;
        ~Holder() {
            ThreadState& t = t_state;
            t.ended = true;
            if (t.slot && ::getpid() == owner->m_pid) owner->release(t.slot);
            t.slot = nullptr;  // in a forked child: left as it is
        }
    };

    Slot& slot(ThreadState& t) {
        if (!t.slot) {
            thread_local Holder holder{this};
            (void)holder;
            auto* s = new Slot;
            s->records.reserve(kBatch);
            std::lock_guard lock(m_mutex);
            m_slots.push_back(s);
            t.slot = s;
        }
        return *t.slot;
    }

    void release(Slot* s) {
        std::lock_guard lock(m_mutex);
        {
            std::lock_guard slotLock(s->mutex);
            m_orphans.insert(m_orphans.end(), s->records.begin(), s->records.end());
        }
        m_slots.erase(std::find(m_slots.begin(), m_slots.end(), s));
        delete s;
    }

    const pid_t m_pid = ::getpid();
    std::mutex m_mutex;  // m_slots, m_ready, m_orphans
    std::vector<Slot*> m_slots;
    std::vector<std::vector<Record>> m_ready;
    std::vector<Record> m_orphans;
};

}  // namespace sl::cuda
