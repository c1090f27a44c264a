#pragma once
// Trust on first use for the Capture tab's remote target: when the CLI says a host's key is not in
// known_hosts (SshFailureInfo, never its prose), the user sees the host and the key's fingerprint
// and decides; Yes re-runs the same command with --remote-accept-new-host-key, which records the
// key (ssh's StrictHostKeyChecking=accept-new), so later commands connect without asking. A
// changed host key (a possible attack) is never offered: its error is shown as the CLI said it.
// GUI thread; nothing blocks (the question is a window-modal QMessageBox opened with open()).
#include <QString>
#include <QStringList>
#include <functional>

#include "viewer/capture/RemoteCli.h"

class QWidget;

namespace sl::viewer {

inline constexpr const char* kAcceptNewHostKeyOption = "--remote-accept-new-host-key";

// "The authenticity of host '[127.0.0.1]:2222' can't be established. ED25519 key fingerprint is
// SHA256:.... Trust it and connect?" (ssh's own wording, so that it reads as ssh's question).
QString hostKeyQuestion(const SshFailureInfo& f);
// Shows the question (objectName "hostKeyDialog") and calls `done(true)` on Yes, `done(false)` on
// No or when it is closed. The dialog dies with `parent`, and then `done` is not called.
void askToTrustHostKey(QWidget* parent, const SshFailureInfo& f, const std::function<void(bool)>& done);
// runCli() that asks on an unknown host key and, on Yes, runs `args` once more with
// --remote-accept-new-host-key; `done` gets the last result (the first one's error on No).
void runCliTrustingNewHostKey(QWidget* parent, const QString& binary, const QStringList& args,
                              const std::function<void(const CliResult&)>& done);

}  // namespace sl::viewer
