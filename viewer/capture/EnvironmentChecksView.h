#pragma once
// The machine checks of `sightline status --environment --format json`, shown in the Capture tab
// before Start (what nsys users know from `nsys status -e`, and more): one summary line ("17
// checks: 3 warnings"), every check that is not OK with its fix, and all of them on demand. The
// JSON comes from the CLI (capture/launcher/EnvironmentChecks), so the tab and `sightline status`
// never disagree. GUI thread; parse() is pure.
#include <QList>
#include <QString>
#include <QWidget>

#include "model/core/Result.h"

class QLabel;
class QToolButton;

namespace sl::viewer {

struct EnvironmentCheck {
    QString id, title, level, detail, fix;  // level: "ok", "warn" or "fail"
};

class EnvironmentChecksView : public QWidget {
    Q_OBJECT
public:
    explicit EnvironmentChecksView(QWidget* parent = nullptr);

    // The checks from the CLI's JSON array; an error when it is not that.
    static Result<QList<EnvironmentCheck>> parse(const QString& json);

    // `machine`: whose checks they are ("" this computer, else the remote host).
    void setChecks(const QList<EnvironmentCheck>& checks, const QString& machine = {});
    // The checks could not be run (an old or missing sightline): says so instead.
    void setProblem(const QString& message);
    QString summaryText() const;
    QString problemsText() const;  // the checks that are not OK, one per line

private:
    void render();

    QList<EnvironmentCheck> m_checks;
    QString m_machine;
    QLabel *m_summary, *m_problems, *m_all;
    QToolButton* m_toggle;
};

}  // namespace sl::viewer
