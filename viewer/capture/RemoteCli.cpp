#include "viewer/capture/RemoteCli.h"

#include <QPointer>
#include <QProcess>

namespace sl::viewer {

QString CliResult::errorText() const {
    if (exitCode == -1) return "sightline could not be started.";
    QStringList lines;
    bool inError = false;
    for (const QString& l : err.split('\n')) {
        if (l.contains(": error: ")) {
            inError = true;
            lines << l.mid(l.indexOf(": error: ") + 9);
        } else if (inError && !l.isEmpty() && !l.startsWith("sightline")) {
            lines << l;  // the fix, on the lines after the error
        }
    }
    if (!lines.isEmpty()) return lines.join('\n');
    const QStringList all = err.trimmed().split('\n');
    return all.isEmpty() ? QString() : all.last();
}

void runCli(QObject* owner, const QString& binary, const QStringList& args,
            const std::function<void(const CliResult&)>& done) {
    auto* p = new QProcess(owner);
    p->setStandardInputFile(QProcess::nullDevice());
    auto finish = [p, done](bool started) {
        CliResult r;
        if (started) {
            r.exitCode = p->exitStatus() == QProcess::NormalExit ? p->exitCode() : 128;
            r.out = QString::fromUtf8(p->readAllStandardOutput());
            r.err = QString::fromUtf8(p->readAllStandardError());
        }
        p->deleteLater();
        done(r);
    };
    QObject::connect(p, &QProcess::finished, owner, [finish] { finish(true); });
    QObject::connect(p, &QProcess::errorOccurred, owner, [finish](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) finish(false);
    });
    p->start(binary, args);
}

QStringList connectionArguments(const RemoteTarget& t) {
    QStringList a{"--remote", t.host.trimmed()};
    if (!t.keyFile.isEmpty()) a << "--remote-key" << t.keyFile;
    if (!t.jumpHost.isEmpty()) a << "--remote-jump" << t.jumpHost;
    return a;
}

}  // namespace sl::viewer
