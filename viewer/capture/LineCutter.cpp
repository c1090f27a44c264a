#include "viewer/capture/LineCutter.h"

#include <utility>

namespace sl::viewer {

QList<QByteArray> LineCutter::append(QByteArrayView bytes) {
    QList<QByteArray> lines;
    qsizetype from = 0;
    while (from < bytes.size()) {
        const qsizetype nl = bytes.indexOf('\n', from);
        const qsizetype end = nl < 0 ? bytes.size() : nl;
        QByteArrayView piece = bytes.sliced(from, end - from);
        if (!m_dropping) {
            while (m_partial.size() + piece.size() > m_max) {
                if (!m_counted) ++m_overLongLines;
                m_counted = true;
                if (m_overLong == OverLong::Drop) {
                    m_partial = QByteArray();
                    m_dropping = true;
                    break;
                }
                const qsizetype take = m_max - m_partial.size();
                m_partial.append(piece.first(take));
                piece = piece.sliced(take);
                lines.append(std::exchange(m_partial, QByteArray()));
            }
            if (!m_dropping) m_partial.append(piece);
        }
        if (nl < 0) break;
        // A split line whose last piece is empty has already come out whole.
        if (!m_dropping && !(m_counted && m_partial.isEmpty())) lines.append(std::exchange(m_partial, QByteArray()));
        m_dropping = m_counted = false;
        from = nl + 1;
    }
    return lines;
}

QByteArray LineCutter::takeRest() {
    m_dropping = m_counted = false;
    return std::exchange(m_partial, QByteArray());
}

}  // namespace sl::viewer
