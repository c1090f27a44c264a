#pragma once
#include <functional>
// The Capture tab's form: the program, its arguments, working directory and environment, then
// one field per option of `sightline profile` that is a capture setting, generated from the option
// definition (model/options) and laid out in its groups (Trace, CUDA, CPU, When, Report, and the
// rest under "More options"). Options this machine or build cannot capture are greyed out with
// the reason; options that do not apply with the other values (their onlyWhen condition) are
// greyed out too. Maps the widgets to CaptureSettings and back; emits changed() on every edit.
// GUI thread. Every option field has the option's long name as objectName.
#include <QList>
#include <QWidget>

#include "viewer/capture/CaptureCapabilities.h"
#include "viewer/capture/CaptureSettings.h"

class QFormLayout;
class QLabel;
class QLineEdit;
class QTableWidget;
class QToolButton;

namespace sl::viewer {

class OptionField;

class CaptureForm : public QWidget {
    Q_OBJECT
public:
    explicit CaptureForm(QWidget* parent = nullptr);

    // The settings as the form shows them; `argumentsError` gets a quoting problem, if any.
    CaptureSettings settings(QString* argumentsError = nullptr) const;
    void setSettings(const CaptureSettings& s);
    void setCapabilities(const CaptureCapabilities& c);
    const CaptureCapabilities& capabilities() const { return m_caps; }
    // The generated option fields, in the definition's order.
    const QList<OptionField*>& fields() const { return m_fields; }
    OptionField* field(const QString& option) const;

signals:
    void changed();

public:
    // While set (a remote target), the "..." buttons of the program and the working directory
    // call this (true: the program) instead of browsing this computer.
    void setBrowser(std::function<void(bool program)> browse) { m_browse = std::move(browse); }

private:
    QWidget* buildProgramGroup();
    QWidget* buildOptionGroup(const QString& group, const QString& title);
    QWidget* buildMoreSection();
    void addFields(const QString& group, QFormLayout* form);
    void applyCapabilities();
    void updateApplies();
    void onFieldChanged();
    void browseProgram();
    void browseDirectory();

    CaptureCapabilities m_caps;
    bool m_capsKnown = false;
    QLineEdit *m_program, *m_arguments, *m_workingDir;
    QTableWidget* m_env;
    QList<OptionField*> m_fields;
    QLabel *m_cudaReason, *m_gpuReason;
    std::function<void(bool)> m_browse;
};

}  // namespace sl::viewer
