#pragma once
// Cuts bytes read from a pipe or terminal into complete lines, holding at most maxLineBytes of
// an unfinished one, so a writer that never ends a line cannot make the GUI hold unbounded
// memory. What happens to a longer line is the reader's choice:
//  - Split: it comes out in pieces of maxLineBytes (a program's own output: shown, not lost);
//  - Drop: it is skipped up to its newline (the progress channel, whose JSON lines are short:
//    one that long is not one of them).
// Qt Core only; no event loop (tests/fuzz/fuzz_progress.cpp drives it directly).
#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace sl::viewer {

class LineCutter {
public:
    enum class OverLong { Split, Drop };
    LineCutter(qsizetype maxLineBytes, OverLong overLong)
        : m_max(maxLineBytes > 0 ? maxLineBytes : 1), m_overLong(overLong) {}

    // Appends what was read; returns the lines it completed, without their newlines.
    QList<QByteArray> append(QByteArrayView bytes);
    // The unterminated rest (the writer died mid-line; empty while dropping), then forgotten.
    QByteArray takeRest();
    // Over-long lines split or dropped so far.
    qint64 overLongLines() const { return m_overLongLines; }

private:
    qsizetype m_max;
    OverLong m_overLong;
    QByteArray m_partial;
    bool m_dropping = false;  // inside an over-long line that is being dropped
    bool m_counted = false;   // this over-long line was already counted (Split)
    qint64 m_overLongLines = 0;
};

}  // namespace sl::viewer
