#pragma once
// API call records made by our own CUPTI callbacks (SIGHTLINE_CUDA_API_RECORDS=callbacks), kept
// per calling thread until a batch is full; full batches wait in a ready list for the module's
// converter thread, which the `notify` hook wakes. The callback runs inside the program's CUDA
// call: appending takes only the thread's own lock, and the program's threads never convert.
//
// Locks, always in this order: the caller's converter lock, then `m_mutex`, then a slot's. A
// program thread holds its slot lock alone to append, and both only to move a full batch, to
// register its slot or to give it back. Our own threads never wait for these locks without a
// limit (takeReady, takeAll): a program thread stopped by a signal may hold one for good.
//
// A thread that ends gives its records to the orphans (a full batch of them is ready like any
// other) and its slot back; a CUDA call made after that by the same thread (a thread_local
// destructor that runs after ours) goes to the orphans too. A forked child leaves everything
// alone: another thread of the parent may have held a lock at the fork.
// One instance per process and record type: a thread's slot is found through a thread_local of
// the type.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace sl::cuda {

template <class Record>
class ApiRecordBatchesOf {
public:
    static constexpr size_t kBatch = 1024;

    // `notify`: called (no lock held) when a batch became ready.
    explicit ApiRecordBatchesOf(void (*notify)() = nullptr) : m_notify(notify) {
        // Neither list grows under the lock in a steady run: program threads append to m_ready
        // (up to kReadyKept batches between two takes), giveBack and takeAll fill m_spare.
        m_ready.reserve(kReadyKept);
        m_spare.reserve(kSpares + kReadyKept);
        // A few spares from the start (160 KiB): the first full batches of the program's
        // threads, before the converter gave any back, need no malloc either.
        for (size_t i = 0; i < kSparesAtStart; ++i) m_spare.emplace_back().reserve(kBatch);
    }

    void add(const Record& r) {
        ThreadState& t = t_state;
        if (t.ended) {
            bool ready;
            {
                std::lock_guard lock(m_mutex);
                m_orphans.push_back(r);
                ready = promoteOrphans();
            }
            if (ready && m_notify) m_notify();
            return;
        }
        Slot& s = slot(t);
        {
            std::lock_guard lock(s.mutex);
            s.records.push_back(r);
            if (s.records.size() < kBatch) return;
        }
        // Full: moved to the ready list under both locks (in their order), so that a record is
        // always where takeAll looks, even when it runs in between. The next batch is a spare
        // one the converter gave back, allocated only when there is none: in a steady run the
        // program's threads do not call malloc here (a thread stopped by a signal inside malloc
        // blocks every later free of its arena, our flush's too), and the list lock is held
        // only to move vectors.
        std::vector<Record> next = takeSpare();
        if (next.capacity() < kBatch) next.reserve(kBatch);
        {
            std::lock_guard lock(m_mutex);
            std::lock_guard slotLock(s.mutex);
            if (s.records.empty()) {  // taken meanwhile: the spare goes back, not to free()
                if (m_spare.size() < m_spare.capacity()) m_spare.push_back(std::move(next));
                return;
            }
            m_ready.push_back(std::exchange(s.records, std::move(next)));
        }
        if (m_notify) m_notify();
    }

    // The full batches (the converter's work), oldest first; nothing when `m_mutex` stays
    // taken for `wait` (then try again later).
    // The list left behind has the capacity of one allocated here, on the caller's thread, so
    // that the program's threads append without allocating.
    std::optional<std::vector<std::vector<Record>>> takeReady(
        std::chrono::milliseconds wait = std::chrono::milliseconds(5)) {
        std::vector<std::vector<Record>> out;
        out.reserve(kReadyKept);
        std::unique_lock lock(m_mutex, std::defer_lock);
        if (!lockWithin(lock, wait)) return std::nullopt;
        out.swap(m_ready);
        return out;
    }

    // Batches the converter is done with: kept (emptied, their memory kept) for the program's
    // threads to fill again, up to kSpares; the rest freed here, on the caller's thread, after
    // the lock. False when `m_mutex` stayed taken for `wait` (a program thread stopped holding
    // it): `batches` is then left as it was, for the caller to keep and give back later; our
    // threads never wait for the list lock without a limit.
    bool giveBack(std::vector<std::vector<Record>>& batches,
                  std::chrono::milliseconds wait = std::chrono::milliseconds(5)) {
        {
            std::unique_lock lock(m_mutex, std::defer_lock);
            if (!lockWithin(lock, wait)) return false;
            while (!batches.empty() && m_spare.size() < kSpares) {
                batches.back().clear();
                m_spare.push_back(std::move(batches.back()));
                batches.pop_back();
            }
        }
        batches.clear();  // the rest, outside the lock
        return true;
    }

    struct Taken {
        std::vector<Record> records;
        int busySlots = 0;      // slots whose lock stayed taken: their records are not here
        bool complete = true;   // false: `m_mutex` stayed taken, nothing was read
    };
    // Everything: ready batches, every thread's records so far, those of threads that ended.
    // Waits at most `wait` for `m_mutex` and for each slot (a thread stopped by a signal, or one
    // inside a signal handler that ends the process, may hold one for good).
    Taken takeAll(std::chrono::milliseconds wait = std::chrono::milliseconds(50)) {
        Taken t;
        std::unique_lock lock(m_mutex, std::defer_lock);
        if (!lockWithin(lock, wait)) {
            t.complete = false;
            return t;
        }
        // The ready batches' memory is kept as spares, not freed: at a fatal signal a free
        // could wait for good on the malloc arena of a thread stopped inside malloc. (Beyond
        // the spares' reserved room, batches are freed: more than kReadyKept unconverted.)
        for (auto& batch : m_ready) {
            t.records.insert(t.records.end(), batch.begin(), batch.end());
            batch.clear();
            if (m_spare.size() < m_spare.capacity()) m_spare.push_back(std::move(batch));
        }
        m_ready.clear();
        t.records.insert(t.records.end(), m_orphans.begin(), m_orphans.end());
        m_orphans.clear();
        for (Slot* s : m_slots) {
            std::unique_lock slotLock(s->mutex, std::defer_lock);
            if (!lockWithin(slotLock, wait)) {
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
    struct ThreadState {
        Slot* slot = nullptr;
        bool ended = false;
    };
    static inline thread_local ThreadState t_state;
    // Registered with the thread's first record; its destructor (at thread exit) gives the slot
    // back. The state itself is trivially destructible, so it stays readable after the thread's
    // destructors have run.
    struct Holder {
        ApiRecordBatchesOf* owner;
        ~Holder() {
            ThreadState& t = t_state;
            t.ended = true;
            if (t.slot && ::getpid() == owner->m_pid) owner->release(t.slot);
            t.slot = nullptr;  // in a forked child: left as it is
        }
    };

    static bool lockWithin(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds wait) {
        if (lock.try_lock()) return true;
        const auto until = std::chrono::steady_clock::now() + wait;
        while (std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            if (lock.try_lock()) return true;
        }
        return false;
    }

    static constexpr size_t kSpares = 64;      // emptied batches kept for reuse
    static constexpr size_t kSparesAtStart = 4;
    static constexpr size_t kReadyKept = 64;   // full batches between two takes, without growing

    std::vector<Record> takeSpare() {
        std::lock_guard lock(m_mutex);
        if (m_spare.empty()) return {};
        std::vector<Record> v = std::move(m_spare.back());
        m_spare.pop_back();
        return v;
    }

    // With m_mutex held: a full batch of orphans becomes ready.
    bool promoteOrphans() {
        if (m_orphans.size() < kBatch) return false;
        m_ready.push_back(std::exchange(m_orphans, {}));
        return true;
    }

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
        bool ready;
        {
            std::lock_guard lock(m_mutex);
            {
                std::lock_guard slotLock(s->mutex);
                m_orphans.insert(m_orphans.end(), s->records.begin(), s->records.end());
            }
            m_slots.erase(std::find(m_slots.begin(), m_slots.end(), s));
            delete s;
            ready = promoteOrphans();
        }
        if (ready && m_notify) m_notify();
    }

    void (*const m_notify)();
    const pid_t m_pid = ::getpid();
    std::mutex m_mutex;  // m_slots, m_ready, m_orphans, m_spare
    std::vector<Slot*> m_slots;
    std::vector<std::vector<Record>> m_ready;
    std::vector<std::vector<Record>> m_spare;  // emptied batches with their memory
    std::vector<Record> m_orphans;
};

}  // namespace sl::cuda
