#include "viewer/capture/RemoteCli.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QProcess>
#include <QTemporaryFile>
#include <memory>

namespace sl::viewer {

std::optional<SshFailureInfo> SshFailureInfo::parse(const QByteArray& json) {
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    if (!doc.isObject()) return std::nullopt;
    const QJsonObject o = doc.object();
    SshFailureInfo f;
    f.failure = o.value("failure").toString();
    if (f.failure.isEmpty()) return std::nullopt;
    f.host = o.value("host").toString();
    f.target = o.value("target").toString();
    f.knownHostsName = o.value("known_hosts_name").toString();
    f.port = o.value("port").toInt();
    for (const QJsonValue& v : o.value("fingerprints").toArray()) {
        const QJsonObject k = v.toObject();
        Key key{k.value("bits").toInt(), k.value("fingerprint").toString(), k.value("type").toString()};
        if (!key.fingerprint.isEmpty()) f.keys << key;
    }
    return f;
}

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
    // A private file for the CLI's classification of an ssh failure (removed with the process).
    auto failureFile = std::make_shared<QTemporaryFile>();
    if (failureFile->open()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(kSshFailureFileVariable, failureFile->fileName());
        p->setProcessEnvironment(env);
    }
    auto finish = [p, done, failureFile](bool started) {
        CliResult r;
        if (started) {
            r.exitCode = p->exitStatus() == QProcess::NormalExit ? p->exitCode() : 128;
            r.out = QString::fromUtf8(p->readAllStandardOutput());
            r.err = QString::fromUtf8(p->readAllStandardError());
            if (r.exitCode != 0 && failureFile->isOpen()) {
                QFile written(failureFile->fileName());
                if (written.open(QIODevice::ReadOnly)) r.ssh = SshFailureInfo::parse(written.readAll());
            }
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
