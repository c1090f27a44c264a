#include "viewer/capture/RemoteTargetBox.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace sl::viewer {

RemoteTargetBox::RemoteTargetBox(QWidget* parent) : QWidget(parent) {
    auto* box = new QGroupBox("Target");
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(box);
    auto* l = new QVBoxLayout(box);
    m_kind = new QComboBox;
    m_kind->setObjectName("target");
    m_kind->addItems({"This computer", "Remote (SSH)"});
    l->addWidget(m_kind);

    m_fields = new QWidget;
    auto* form = new QFormLayout(m_fields);
    form->setContentsMargins(0, 0, 0, 0);
    auto line = [&](const char* name, const char* placeholder, const char* tip) {
        auto* e = new QLineEdit;
        e->setObjectName(name);
        e->setPlaceholderText(placeholder);
        e->setToolTip(tip);
        connect(e, &QLineEdit::textChanged, this, &RemoteTargetBox::changed);
        return e;
    };
    m_host = line("remoteHost", "user@host[:port]",
                  "The machine to capture on, over SSH (the system's OpenSSH client; host keys "
                  "are checked against the known_hosts files ssh uses, ~/.ssh/known_hosts by default).");
    m_key = line("remoteKey", "the SSH agent's keys",
                 "A private key file; empty: the SSH agent and ~/.ssh as ssh uses them.");
    m_jump = line("remoteJump", "none", "Reach the machine through this jump host (ssh -J).");
    m_sightline = line("remoteSightline", "sightline on the remote PATH",
                       "The sightline to run there, when it is not on the PATH of a login.");
    auto* keyRow = new QHBoxLayout;
    keyRow->addWidget(m_key, 1);
    auto* pickKey = new QPushButton("...");
    pickKey->setObjectName("pickRemoteKey");
    connect(pickKey, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, "SSH private key", QDir::homePath() + "/.ssh");
        if (!f.isEmpty()) m_key->setText(f);
    });
    keyRow->addWidget(pickKey);
    form->addRow("Host:", m_host);
    form->addRow("Key file:", keyRow);
    form->addRow("Jump host:", m_jump);
    form->addRow("Remote sightline:", m_sightline);
    auto* buttons = new QHBoxLayout;
    auto button = [&](const char* name, const char* text, void (RemoteTargetBox::*signal)()) {
        auto* b = new QPushButton(text);
        b->setObjectName(name);
        connect(b, &QPushButton::clicked, this, signal);
        buttons->addWidget(b);
    };
    button("checkRemote", "Check", &RemoteTargetBox::checkRequested);
    button("browseRemoteProgram", "Program there...", &RemoteTargetBox::browseProgramRequested);
    button("browseRemoteDirectory", "Directory there...", &RemoteTargetBox::browseDirectoryRequested);
    button("remoteReports", "Remote reports...", &RemoteTargetBox::reportsRequested);
    form->addRow(buttons);
    l->addWidget(m_fields);
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabled();
        emit changed();
    });
    updateEnabled();
}

bool RemoteTargetBox::isRemote() const { return m_kind->currentIndex() == 1; }

void RemoteTargetBox::updateEnabled() { m_fields->setVisible(isRemote()); }

RemoteTarget RemoteTargetBox::target() const {
    if (!isRemote()) return {};
    // A remote target without a host still is one: the check says what is missing.
    const QString host = m_host->text().trimmed();
    return {host.isEmpty() ? QString(" ") : host, m_key->text(), m_jump->text().trimmed(),
            m_sightline->text().trimmed()};
}

void RemoteTargetBox::setTarget(const RemoteTarget& t) {
    const QSignalBlocker block(this);
    m_kind->setCurrentIndex(t.isRemote() ? 1 : 0);
    m_host->setText(t.host.trimmed());
    m_key->setText(t.keyFile);
    m_jump->setText(t.jumpHost);
    m_sightline->setText(t.sightlinePath);
    updateEnabled();
}

}  // namespace sl::viewer
