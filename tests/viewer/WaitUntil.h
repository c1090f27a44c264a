#pragma once
// Polls `pred` with the event loop running, for GoogleTest GUI tests (QTRY_* report to QTest,
// not GoogleTest). False when it did not hold within timeoutMs.
#include <QElapsedTimer>
#include <QTest>

namespace sl::test {

template <class Pred>
bool waitUntil(Pred pred, int timeoutMs = 10000) {
    QElapsedTimer t;
    t.start();
    while (!pred()) {
        if (t.elapsed() > timeoutMs) return false;
        QTest::qWait(5);
    }
    return true;
}

}  // namespace sl::test
