// JobTracker: the newest job of a key wins, cancellation reaches the job, results arrive on
// the GUI thread, an owner's destruction drops its results, and destroying the tracker with
// jobs running returns as soon as they see their flag.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "tests/viewer/WaitUntil.h"
#include "viewer/jobs/JobTracker.h"

namespace sl::viewer {
namespace {

using namespace std::chrono_literals;
const QString kKind = QStringLiteral("kind");

// Spins until `cancel` or `release` is set, like an analysis polling its flag; says whether
// it was cancelled.
bool spinUntil(const std::atomic<bool>& cancel, const std::atomic<bool>& release) {
    while (!cancel.load() && !release.load()) std::this_thread::sleep_for(1ms);
    return cancel.load();
}

TEST(JobTracker, NewestJobOfAKeyWinsAndTheSupersededOneIsCancelled) {
    JobTracker tracker(2);
    QObject owner;
    std::atomic<bool> release{false}, firstStarted{false}, firstSawCancel{false}, secondRan{false},
        thirdRan{false};
    int delivered = 0, firstDelivered = 0;
    tracker.start(
        &owner, kKind,
        [&](const std::atomic<bool>& cancel) {
            firstStarted = true;
            firstSawCancel = spinUntil(cancel, release);
            return 1;
        },
        [&](int) { ++firstDelivered; });
    ASSERT_TRUE(test::waitUntil([&] { return firstStarted.load(); }, 5000));
    // Superseded while it waits behind the first: it never runs.
    tracker.start(
        &owner, kKind,
        [&](const std::atomic<bool>&) {
            secondRan = true;
            return 2;
        },
        [&](int v) { delivered = v; });
    tracker.start(
        &owner, kKind,
        [&](const std::atomic<bool>&) {
            thirdRan = true;
            return 3;
        },
        [&](int v) { delivered = v; });
    ASSERT_TRUE(test::waitUntil([&] { return delivered != 0; }, 5000));
    EXPECT_EQ(delivered, 3);
    EXPECT_TRUE(firstSawCancel);
    EXPECT_EQ(firstDelivered, 0);
    EXPECT_FALSE(secondRan);
    EXPECT_TRUE(thirdRan);
    EXPECT_FALSE(tracker.busy(&owner, kKind));
}

TEST(JobTracker, AKeyRunsOneJobAtATimeAndOtherKeysRunBeside) {
    JobTracker tracker(4);
    QObject owner;
    std::atomic<int> runningOfKey{0}, maxRunningOfKey{0};
    std::atomic<bool> otherRan{false}, release{false};
    int results = 0;
    auto work = [&](const std::atomic<bool>&) {
        maxRunningOfKey = std::max(maxRunningOfKey.load(), ++runningOfKey);
        // Ignores its flag for a while, as an analysis between two checks does.
        std::this_thread::sleep_for(30ms);
        --runningOfKey;
        return 0;
    };
    for (int i = 0; i < 5; ++i) tracker.start(&owner, kKind, work, [&](int) { ++results; });
    tracker.start(
        &owner, QStringLiteral("other"),
        [&](const std::atomic<bool>& cancel) {
            otherRan = true;
            spinUntil(cancel, release);
            return 0;
        },
        [&](int) { ++results; });
    EXPECT_TRUE(test::waitUntil([&] { return otherRan.load(); }, 5000));
    ASSERT_TRUE(test::waitUntil([&] { return !tracker.busy(&owner, kKind); }, 5000));
    EXPECT_EQ(maxRunningOfKey, 1);
    EXPECT_EQ(results, 1);  // only the newest of the five delivered
    release = true;
    EXPECT_TRUE(test::waitUntil([&] { return results == 2; }, 5000));
}

TEST(JobTracker, CancelReachesTheRunningJobAndDropsItsResult) {
    JobTracker tracker(2);
    QObject owner;
    std::atomic<bool> started{false}, sawCancel{false}, release{false};
    bool delivered = false;
    tracker.start(
        &owner, kKind,
        [&](const std::atomic<bool>& cancel) {
            started = true;
            sawCancel = spinUntil(cancel, release);
            return 0;
        },
        [&](int) { delivered = true; });
    ASSERT_TRUE(test::waitUntil([&] { return started.load(); }, 5000));
    tracker.cancel(&owner, kKind);
    EXPECT_TRUE(test::waitUntil([&] { return sawCancel.load(); }, 5000));
    EXPECT_TRUE(test::waitUntil([&] { return !tracker.busy(&owner, kKind); }, 5000));
    QCoreApplication::processEvents();
    EXPECT_FALSE(delivered);
}

TEST(JobTracker, WorkRunsOnThePoolAndResultsOnTheGuiThread) {
    JobTracker tracker(2);
    QObject owner;
    std::atomic<QThread*> workThread{nullptr};
    QThread* doneThread = nullptr;
    std::unique_ptr<int> value;
    // A move-only result travels to the GUI thread.
    tracker.start(
        &owner, kKind,
        [&](const std::atomic<bool>&) {
            workThread = QThread::currentThread();
            return std::make_unique<int>(42);
        },
        [&](std::unique_ptr<int> v) {
            doneThread = QThread::currentThread();
            value = std::move(v);
        });
    ASSERT_TRUE(test::waitUntil([&] { return value != nullptr; }, 5000));
    EXPECT_EQ(*value, 42);
    EXPECT_EQ(doneThread, QCoreApplication::instance()->thread());
    EXPECT_NE(workThread.load(), QCoreApplication::instance()->thread());
}

TEST(JobTracker, DestroyingTheOwnerCancelsItsJobsAndDropsTheirResults) {
    JobTracker tracker(2);
    auto* owner = new QObject;
    std::atomic<bool> started{false}, sawCancel{false}, release{false};
    bool delivered = false;
    tracker.start(
        owner, kKind,
        [&](const std::atomic<bool>& cancel) {
            started = true;
            sawCancel = spinUntil(cancel, release);
            return 0;
        },
        [&](int) { delivered = true; });
    ASSERT_TRUE(test::waitUntil([&] { return started.load(); }, 5000));
    QElapsedTimer t;
    t.start();
    delete owner;
    EXPECT_LT(t.elapsed(), 20);  // nothing waits for the job
    EXPECT_TRUE(test::waitUntil([&] { return sawCancel.load(); }, 5000));
    EXPECT_TRUE(test::waitUntil([&] { return !tracker.busy(owner, kKind); }, 5000));
    QCoreApplication::processEvents();
    EXPECT_FALSE(delivered);
}

TEST(JobTracker, DestroyingTheTrackerWithJobsRunningCancelsThemAndReturnsPromptly) {
    auto tracker = std::make_unique<JobTracker>(2);
    QObject owner;
    std::atomic<int> started{0}, sawCancel{0};
    std::atomic<bool> queuedRan{false}, release{false};
    int delivered = 0;
    for (const char* kind : {"a", "b"})
        tracker->start(
            &owner, QString::fromLatin1(kind),
            [&](const std::atomic<bool>& cancel) {
                ++started;
                if (spinUntil(cancel, release)) ++sawCancel;
                return 0;
            },
            [&](int) { ++delivered; });
    // Both workers are busy: this one waits in the queue and never starts.
    tracker->start(
        &owner, QStringLiteral("c"),
        [&](const std::atomic<bool>&) {
            queuedRan = true;
            return 0;
        },
        [&](int) { ++delivered; });
    ASSERT_TRUE(test::waitUntil([&] { return started == 2; }, 5000));
    QElapsedTimer t;
    t.start();
    tracker.reset();
    EXPECT_LT(t.elapsed(), 200);
    EXPECT_EQ(sawCancel, 2);
    EXPECT_FALSE(queuedRan);
    QCoreApplication::processEvents();
    EXPECT_EQ(delivered, 0);
}

}  // namespace
}  // namespace sl::viewer
