#pragma once
// Named presets of the Capture tab in QSettings (group "capture/presets"). A preset is stored
// as the `sightline profile` argv plus the working directory, so it reads back through the same
// parser as a command line and stays readable in the settings file. Uses the QSettings of the
// application's organisation/name unless given one (tests pass an isolated file).
#include <QString>
#include <QStringList>

#include "model/core/Result.h"
#include "viewer/capture/CaptureSettings.h"

class QSettings;

namespace sl::viewer {

class CapturePresets {
public:
    explicit CapturePresets(QSettings* settings = nullptr) : m_settings(settings) {}

    QStringList names() const;  // sorted
    void save(const QString& name, const CaptureSettings& s);
    Result<CaptureSettings> load(const QString& name) const;
    void remove(const QString& name);

    // The form as it was at the last start, restored when the tab opens.
    void saveLast(const CaptureSettings& s) { save(kLast, s); }
    Result<CaptureSettings> loadLast() const { return load(kLast); }
    static constexpr const char* kLast = "(last capture)";

private:
    template <class F>
    auto withSettings(F&& f) const;
    QSettings* m_settings;
};

}  // namespace sl::viewer
