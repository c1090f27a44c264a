#include "viewer/capture/EnvironmentChecksView.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace sl::viewer {

namespace {

QString line(const EnvironmentCheck& c, bool withFix) {
    const QString mark = c.level == "ok" ? "OK" : c.level == "warn" ? "WARN" : "FAIL";
    QString l = mark + "  " + c.title + ": " + c.detail;
    if (withFix && !c.fix.isEmpty()) l += "\n      fix: " + c.fix;
    return l;
}

}  // namespace

EnvironmentChecksView::EnvironmentChecksView(QWidget* parent) : QWidget(parent) {
    setObjectName("environmentChecks");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* top = new QHBoxLayout;
    m_summary = new QLabel("Checking this machine...");
    m_summary->setObjectName("environmentSummary");
    m_toggle = new QToolButton;
    m_toggle->setObjectName("environmentDetails");
    m_toggle->setText("all checks");
    m_toggle->setCheckable(true);
    m_toggle->setAutoRaise(true);
    m_toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toggle->setArrowType(Qt::RightArrow);
    m_toggle->setToolTip("What `sightline status --environment` reports");
    top->addWidget(m_summary);
    top->addWidget(m_toggle);
    top->addStretch(1);
    layout->addLayout(top);
    for (QLabel** l : {&m_problems, &m_all}) {
        *l = new QLabel;
        (*l)->setWordWrap(true);
        (*l)->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(*l);
    }
    m_problems->setObjectName("environmentProblems");
    m_problems->setStyleSheet("color: #a05a00;");
    m_all->setObjectName("environmentAll");
    m_all->hide();
    m_toggle->hide();
    connect(m_toggle, &QToolButton::toggled, this, [this](bool open) {
        m_toggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        m_all->setVisible(open);
    });
}

Result<QList<EnvironmentCheck>> EnvironmentChecksView::parse(const QString& json) {
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(json.toUtf8(), &err);
    if (!doc.isArray())
        return makeError("not the JSON of 'sightline status -e --format json' (" +
                         err.errorString().toStdString() + ")");
    QList<EnvironmentCheck> out;
    for (const QJsonValue& v : doc.array()) {
        const QJsonObject o = v.toObject();
        EnvironmentCheck c{o.value("id").toString(), o.value("title").toString(),
                           o.value("level").toString(), o.value("detail").toString(),
                           o.value("fix").toString()};
        if (c.title.isEmpty() || c.level.isEmpty())
            return makeError("a check without a title or level in the environment report");
        out << c;
    }
    return out;
}

void EnvironmentChecksView::setChecks(const QList<EnvironmentCheck>& checks, const QString& machine) {
    m_checks = checks;
    m_machine = machine;
    render();
}

void EnvironmentChecksView::setProblem(const QString& message) {
    m_checks.clear();
    m_summary->setText("Machine checks unavailable: " + message);
    m_problems->clear();
    m_problems->hide();
    m_toggle->hide();
}

void EnvironmentChecksView::render() {
    int warn = 0, fail = 0;
    QStringList problems, all;
    for (const EnvironmentCheck& c : m_checks) {
        warn += c.level == "warn";
        fail += c.level == "fail";
        if (c.level != "ok") problems << line(c, true);
        all << line(c, false);
    }
    QString summary = (m_machine.isEmpty() ? QString("Machine checks") : "Checks on " + m_machine) +
                      QString(": %1 run").arg(m_checks.size());
    if (fail) summary += QString(", %1 failed").arg(fail);
    if (warn) summary += QString(", %1 %2").arg(warn).arg(warn == 1 ? "warning" : "warnings");
    if (!fail && !warn) summary += ", all OK";
    m_summary->setText(summary + ".");
    m_problems->setText(problems.join('\n'));
    m_problems->setVisible(!problems.isEmpty());
    m_all->setText(all.join('\n'));
    m_toggle->show();
}

QString EnvironmentChecksView::summaryText() const {
    return m_summary->text();
}

QString EnvironmentChecksView::problemsText() const {
    return m_problems->text();
}

}  // namespace sl::viewer
