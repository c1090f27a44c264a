#include "viewer/capture/CapturePresets.h"

#include <QSettings>
#include <QUrl>

#include "viewer/capture/ProfileCommandBuilder.h"

namespace sl::viewer {

namespace {
constexpr const char* kGroup = "capture/presets";

// Preset names may contain '/' and other characters QSettings treats as key syntax.
QString key(const QString& name) {
    return QString::fromLatin1(QUrl::toPercentEncoding(name));
}
QString unkey(const QString& k) {
    return QUrl::fromPercentEncoding(k.toLatin1());
}
}  // namespace

template <class F>
auto CapturePresets::withSettings(F&& f) const {
    if (m_settings) return f(*m_settings);
    QSettings s;
    return f(s);
}

QStringList CapturePresets::names() const {
    return withSettings([](QSettings& s) {
        s.beginGroup(kGroup);
        QStringList out;
        for (const QString& g : s.childGroups())
            if (unkey(g) != kLast) out << unkey(g);
        s.endGroup();
        out.sort(Qt::CaseInsensitive);
        return out;
    });
}

void CapturePresets::save(const QString& name, const CaptureSettings& cs) {
    withSettings([&](QSettings& s) {
        s.beginGroup(QString(kGroup) + "/" + key(name));
        s.setValue("argv", ProfileCommandBuilder::arguments(cs));
        s.setValue("workingDirectory", cs.workingDirectory);
        s.endGroup();
        s.sync();
        return 0;
    });
}

Result<CaptureSettings> CapturePresets::load(const QString& name) const {
    return withSettings([&](QSettings& s) -> Result<CaptureSettings> {
        s.beginGroup(QString(kGroup) + "/" + key(name));
        const QStringList argv = s.value("argv").toStringList();
        const QString wd = s.value("workingDirectory").toString();
        s.endGroup();
        if (argv.isEmpty())
            return makeError(("no capture preset named '" + name + "'").toStdString());
        auto r = ProfileCommandBuilder::parse(argv);
        if (!r)
            return makeError(("capture preset '" + name + "' is damaged: ").toStdString() +
                             r.error());
        r->workingDirectory = wd;
        return r;
    });
}

void CapturePresets::remove(const QString& name) {
    withSettings([&](QSettings& s) {
        s.remove(QString(kGroup) + "/" + key(name));
        s.sync();
        return 0;
    });
}

}  // namespace sl::viewer
