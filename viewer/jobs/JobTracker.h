#pragma once
// Runs the GUI's background work (loading, statistics, Insights, compare) on one JobPool.
// A job belongs to an (owner, kind) key: starting a job supersedes the key's previous one,
// whose cancel flag is set and whose result is dropped (newest wins, by a generation count
// per key). A key runs one job at a time; the newest request waits for a superseded job to
// notice its flag, so stale work never piles up on the pool. Results reach `done` on the GUI
// thread through a queued call, only while the job is the newest of its key and its owner
// lives: an owner's destruction cancels its jobs and nothing ever waits for a job on the GUI
// thread. Lives on the GUI thread; instance() is the application's, destroyed with it.
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <type_traits>
#include <utility>

#include "viewer/jobs/JobPool.h"

namespace sl::viewer {

class JobTracker : public QObject {
    Q_OBJECT
public:
    explicit JobTracker(unsigned threads = JobPool::defaultThreads(), QObject* parent = nullptr);
    // Cancels every job and joins the pool: returns once the running jobs have seen their flag.
    ~JobTracker() override;

    // The application's tracker, made on first use and destroyed with the QCoreApplication
    // (before static destruction, so no job outlives the data it reads).
    static JobTracker& instance();

    // Runs `work(cancel)` on the pool, then `done(result)` on the GUI thread if this is still
    // the newest job of (owner, kind). `work` must not touch the owner; it should return
    // early when `cancel` becomes true (its result is dropped then). Returns the generation.
    template <class Work, class Done>
    quint64 start(QObject* owner, const QString& kind, Work work, Done done);

    // Drops the key's pending result and sets its running job's flag.
    void cancel(QObject* owner, const QString& kind);
    // Whether a job of the key is running or waiting to run.
    bool busy(QObject* owner, const QString& kind) const;
    unsigned threadCount() const { return m_pool->threadCount(); }

private:
    // Runs on the pool; returns what to do on the GUI thread with the result.
    using Erased = std::function<std::function<void()>(const std::atomic<bool>& cancel)>;
    struct Job {
        quint64 generation = 0;
        std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
        Erased work;
    };
    using Key = std::pair<const QObject*, QString>;
    struct Slot {
        quint64 generation = 0;        // of the newest request
        std::shared_ptr<Job> running;  // on the pool
        std::shared_ptr<Job> waiting;  // the newest request, while a superseded job runs
    };

    quint64 enqueue(QObject* owner, const QString& kind, Erased work);
    void submit(const Key& key, const std::shared_ptr<Job>& job);
    void finished(const Key& key, const std::shared_ptr<Job>& job, std::function<void()> deliver);
    void cancelSlot(Slot& slot);
    void ownerDestroyed(const QObject* owner);

    std::map<Key, Slot> m_slots;
    std::set<const QObject*> m_watched;  // owners whose destroyed() is connected
    // Last member: destroyed first, so the workers are joined before the slots go away.
    std::unique_ptr<JobPool> m_pool;
};

template <class Work, class Done>
quint64 JobTracker::start(QObject* owner, const QString& kind, Work work, Done done) {
    using Output = std::invoke_result_t<Work&, const std::atomic<bool>&>;
    // Shared holders: std::function needs copyable callables, and results may be move-only.
    auto doneHolder = std::make_shared<Done>(std::move(done));
    auto workHolder = std::make_shared<Work>(std::move(work));
    return enqueue(
        owner, kind,
        [workHolder, doneHolder](const std::atomic<bool>& cancel) -> std::function<void()> {
            if constexpr (std::is_void_v<Output>) {
                (*workHolder)(cancel);
                return [doneHolder] { (*doneHolder)(); };
            } else {
                auto result = std::make_shared<Output>((*workHolder)(cancel));
                return [doneHolder, result] { (*doneHolder)(std::move(*result)); };
            }
        });
}

}  // namespace sl::viewer
