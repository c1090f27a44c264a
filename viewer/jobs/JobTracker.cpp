#include "viewer/jobs/JobTracker.h"

#include <QCoreApplication>
#include <QPointer>

namespace sl::viewer {
namespace {

JobTracker* g_instance = nullptr;

// Runs inside ~QCoreApplication: the workers are cancelled and joined while everything they
// read (reports, the analyses' static tables) still exists.
void destroyInstance() {
    delete g_instance;
    g_instance = nullptr;
}

}  // namespace

JobTracker::JobTracker(unsigned threads, QObject* parent)
    : QObject(parent), m_pool(std::make_unique<JobPool>(threads)) {}

JobTracker::~JobTracker() {
    for (auto& entry : m_slots) cancelSlot(entry.second);
    // Joins the workers. Each one is inside a job that polls its (now set) flag, or idle; the
    // results they post are dropped with this object's pending events.
    m_pool.reset();
}

JobTracker& JobTracker::instance() {
    if (!g_instance) {
        g_instance = new JobTracker;
        if (QCoreApplication::instance()) qAddPostRoutine(destroyInstance);
    }
    return *g_instance;
}

quint64 JobTracker::enqueue(QObject* owner, const QString& kind, Erased work) {
    if (owner && m_watched.insert(owner).second)
        connect(owner, &QObject::destroyed, this, [this, owner] { ownerDestroyed(owner); });
    const Key key{owner, kind};
    Slot& slot = m_slots[key];
    auto job = std::make_shared<Job>();
    job->generation = ++slot.generation;
    job->work = std::move(work);
    if (slot.running) {
        // One job per key on the pool: the superseded one is told to stop, and a request that
        // was waiting behind it is replaced without ever running.
        slot.running->cancel->store(true);
        slot.waiting = job;
    } else {
        slot.running = job;
        submit(key, job);
    }
    return job->generation;
}

void JobTracker::submit(const Key& key, const std::shared_ptr<Job>& job) {
    // `this` outlives every task: the destructor joins the pool before the object goes away.
    m_pool->post([this, key, job] {
        std::function<void()> deliver;
        if (!job->cancel->load()) deliver = job->work(*job->cancel);
        job->work = nullptr;  // what it captured (a report, say) is released on this thread
        // A superseded job's result is dropped here too: freeing a large result on the GUI
        // thread would cost it the time it must not lose.
        if (job->cancel->load()) deliver = nullptr;
        QMetaObject::invokeMethod(
            this,
            [this, key, job, deliver = std::move(deliver)]() mutable {
                finished(key, job, std::move(deliver));
            },
            Qt::QueuedConnection);
    });
}

void JobTracker::finished(const Key& key, const std::shared_ptr<Job>& job,
                          std::function<void()> deliver) {
    auto it = m_slots.find(key);
    if (it == m_slots.end() || it->second.running != job) return;
    Slot& slot = it->second;
    slot.running = nullptr;
    if (slot.waiting) {
        slot.running = std::move(slot.waiting);
        submit(key, slot.running);
    }
    const bool newest = job->generation == slot.generation && !job->cancel->load();
    if (!slot.running) m_slots.erase(it);
    // Last: `done` may start the key's next job (a loader's second stage does).
    if (newest && deliver) deliver();
}

void JobTracker::cancelSlot(Slot& slot) {
    ++slot.generation;
    slot.waiting = nullptr;
    if (slot.running) slot.running->cancel->store(true);
}

void JobTracker::cancel(QObject* owner, const QString& kind) {
    auto it = m_slots.find(Key{owner, kind});
    if (it != m_slots.end()) cancelSlot(it->second);
}

bool JobTracker::busy(QObject* owner, const QString& kind) const {
    auto it = m_slots.find(Key{owner, kind});
    return it != m_slots.end() && (it->second.running || it->second.waiting);
}

void JobTracker::ownerDestroyed(const QObject* owner) {
    m_watched.erase(owner);
    for (auto& [key, slot] : m_slots)
        if (key.first == owner) cancelSlot(slot);
}

}  // namespace sl::viewer
