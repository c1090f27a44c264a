#include "viewer/capture/HostKeyPrompt.h"

#include <QMessageBox>
#include <QPushButton>

namespace sl::viewer {

QString hostKeyQuestion(const SshFailureInfo& f) {
    const QString host = f.knownHostsName.isEmpty() ? f.host : f.knownHostsName;
    QString text = "The authenticity of host '" + host + "' can't be established.\n";
    for (const SshFailureInfo::Key& k : f.keys)
        text += (k.type.isEmpty() ? QString("Its") : k.type) + " key fingerprint is " + k.fingerprint + ".\n";
    text += "Trust it and connect?";
    return text;
}

void askToTrustHostKey(QWidget* parent, const SshFailureInfo& f, const std::function<void(bool)>& done) {
    auto* box = new QMessageBox(QMessageBox::Question, "Unknown host key", hostKeyQuestion(f),
                                QMessageBox::Yes | QMessageBox::No, parent);
    box->setObjectName("hostKeyDialog");
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::No);  // Enter must not trust a key unread
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    const QString type = f.keys.first().type.isEmpty() ? QString("ed25519") : f.keys.first().type.toLower();
    box->setInformativeText(
        "Compare the fingerprint with the host's own (ssh-keygen -lf /etc/ssh/ssh_host_" + type +
        "_key.pub run there). Yes adds the key to known_hosts: later connections to " + f.target +
        " check against it and ask nothing.");
    QObject::connect(box, &QMessageBox::finished, box,
                     [box, done](int) { done(box->clickedButton() == box->button(QMessageBox::Yes)); });
    box->open();
}

void runCliTrustingNewHostKey(QWidget* parent, const QString& binary, const QStringList& args,
                              const std::function<void(const CliResult&)>& done) {
    runCli(parent, binary, args, [parent, binary, args, done](const CliResult& r) {
        if (!r.ssh || !r.ssh->canTrustHostKey() || args.contains(kAcceptNewHostKeyOption)) return done(r);
        askToTrustHostKey(parent, *r.ssh, [parent, binary, args, done, r](bool yes) {
            if (!yes) return done(r);
            runCli(parent, binary, args + QStringList{kAcceptNewHostKeyOption}, done);
        });
    });
}

}  // namespace sl::viewer
