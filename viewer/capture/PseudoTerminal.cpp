#include "viewer/capture/PseudoTerminal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include <QSocketNotifier>

namespace sl::viewer {

PseudoTerminal::PseudoTerminal(QObject* parent) : QObject(parent) {}

PseudoTerminal::~PseudoTerminal() {
    closeAll();
}

bool PseudoTerminal::open() {
    closeAll();
    m_master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m_master < 0) return false;
    const char* name = nullptr;
    if (::grantpt(m_master) != 0 || ::unlockpt(m_master) != 0 || !(name = ::ptsname(m_master))) {
        closeAll();
        return false;
    }
    // O_CLOEXEC: the child keeps only the copy dup2'ed onto its stdout.
    m_slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m_slave < 0) {
        closeAll();
        return false;
    }
    termios t{};
    if (::tcgetattr(m_slave, &t) == 0) {
        t.c_oflag &= ~tcflag_t(OPOST);  // "\n" stays "\n"
        t.c_lflag &= ~tcflag_t(ECHO);
        ::tcsetattr(m_slave, TCSANOW, &t);
    }
    ::fcntl(m_master, F_SETFL, ::fcntl(m_master, F_GETFL) | O_NONBLOCK);
    m_notifier = new QSocketNotifier(m_master, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &PseudoTerminal::readAvailable);
    return true;
}

void PseudoTerminal::closeSlave() {
    if (m_slave >= 0) ::close(m_slave);
    m_slave = -1;
}

void PseudoTerminal::readAvailable() {
    char buf[16384];
    QByteArray got;
    for (;;) {
        const ssize_t n = ::read(m_master, buf, sizeof buf);
        if (n > 0) {
            got.append(buf, n);
            continue;
        }
        // EIO: every slave is closed (the program tree is gone); EAGAIN: nothing more for now.
        if (n < 0 && errno == EAGAIN) break;
        if (m_notifier) m_notifier->setEnabled(false);
        break;
    }
    if (!got.isEmpty()) emit dataRead(got);
}

void PseudoTerminal::drainAndClose() {
    if (m_master >= 0) readAvailable();
    closeAll();
}

void PseudoTerminal::closeAll() {
    delete m_notifier;
    m_notifier = nullptr;
    closeSlave();
    if (m_master >= 0) ::close(m_master);
    m_master = -1;
}

}  // namespace sl::viewer
