#pragma once
// API call records made by our own CUPTI callbacks (SIGHTLINE_CUDA_API_RECORDS=callbacks), kept
// per calling thread until a batch is full or the capture flushes. The callback runs inside the
// program's CUDA call: appending takes only the thread's own lock (never contended but by a
// flush), and a full batch is handed out to be converted outside it.
//
// A thread that ends leaves its records behind (taken by the next takeAll) and its batch is
// freed: a program that starts many short threads keeps no memory per thread.
// One instance per process and record type (a thread's batch is found through a thread_local).
#include <cupti.h>

#include <algorithm>
#include <mutex>
#include <vector>

namespace sl::cuda {

template <class Record>
class ApiRecordBatchesOf {
public:
    static constexpr size_t kBatch = 1024;

    // Appends to the calling thread's batch. When that fills, its records are moved into
    // `full` (left empty otherwise) for the caller to convert.
    void add(const Record& r, std::vector<Record>& full) {
        Slot& s = slot();
        std::lock_guard lock(s.mutex);
        s.records.push_back(r);
        if (s.records.size() >= kBatch) full.swap(s.records);
    }

    // Every thread's records so far, and those of threads that ended.
    std::vector<Record> takeAll() {
        std::vector<Record> all;
        std::lock_guard lock(m_mutex);
        all.swap(m_orphans);
        for (Slot* s : m_slots) {
            std::lock_guard slotLock(s->mutex);
            all.insert(all.end(), s->records.begin(), s->records.end());
            s->records.clear();
        }
        return all;
    }

private:
    struct Slot {
        std::mutex mutex;
        std::vector<Record> records;
    };
    // The calling thread's slot, registered at its first record and unregistered at its end.
    struct Holder {
        ApiRecordBatchesOf* owner = nullptr;
        Slot* slot = nullptr;
        ~Holder() {
            if (owner) owner->release(slot);
        }
    };

    Slot& slot() {
        thread_local Holder t;
        if (!t.slot) {
            t.slot = new Slot;
            t.slot->records.reserve(kBatch);
            t.owner = this;
            std::lock_guard lock(m_mutex);
            m_slots.push_back(t.slot);
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

    std::mutex m_mutex;  // m_slots, m_orphans; taken before a slot's own
    std::vector<Slot*> m_slots;
    std::vector<Record> m_orphans;
};

using ApiRecordBatches = ApiRecordBatchesOf<CUpti_ActivityAPI>;

}  // namespace sl::cuda
