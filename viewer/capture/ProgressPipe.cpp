#include "viewer/capture/ProgressPipe.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <QSocketNotifier>

namespace sl::viewer {

ProgressPipe::ProgressPipe(QObject* parent) : QObject(parent) {}

ProgressPipe::~ProgressPipe() {
    closeAll();
}

bool ProgressPipe::open() {
    closeAll();
    int fds[2];
    // Close-on-exec on both ends: no other child of the GUI inherits them.
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    m_read = fds[0];
    m_write = fds[1];
    ::fcntl(m_read, F_SETFL, ::fcntl(m_read, F_GETFL) | O_NONBLOCK);
    m_notifier = new QSocketNotifier(m_read, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &ProgressPipe::readAvailable);
    return true;
}

void ProgressPipe::inheritInChild(int writeFd) {
    if (writeFd >= 0) ::fcntl(writeFd, F_SETFD, 0);
}

void ProgressPipe::closeWriteEnd() {
    if (m_write >= 0) ::close(m_write);
    m_write = -1;
}

void ProgressPipe::readAvailable() {
    char buf[16384];
    for (;;) {
        const ssize_t n = ::read(m_read, buf, sizeof buf);
        if (n > 0) {
            for (const QByteArray& line : m_lines.append(QByteArrayView(buf, n))) emit lineRead(line);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (m_notifier) m_notifier->setEnabled(false);  // end of file: every writer is gone
        break;
    }
}

void ProgressPipe::drainAndClose() {
    if (m_read >= 0) readAvailable();
    const QByteArray rest = m_lines.takeRest();
    if (!rest.isEmpty()) emit lineRead(rest);  // the writer died mid-line
    closeAll();
}

void ProgressPipe::closeAll() {
    delete m_notifier;
    m_notifier = nullptr;
    closeWriteEnd();
    if (m_read >= 0) ::close(m_read);
    m_read = -1;
    m_lines.takeRest();
}

}  // namespace sl::viewer
