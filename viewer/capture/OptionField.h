#pragma once
// One option of the definition (model/options) as a form field, generated from it: a check box
// for a switch, a combo box for a choice (with a number box for values such as "repeat:N"), one
// check box per value for a list, a number box with the definition's range for an integer or a
// number of seconds, a line edit for text. The field's objectName and "option" property are the
// option's long name (its editor has the same objectName; a list's check boxes are "NAME-VALUE"); its tooltip is the option's help, and how it differs from nsys or why it
// is not available here. Reads and writes the value as the CLI reads it. GUI thread.
#include <QList>
#include <QString>
#include <QWidget>

#include "model/options/OptionDef.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace sl::viewer {

class OptionField : public QWidget {
    Q_OBJECT
public:
    explicit OptionField(const options::OptionDef& def, QWidget* parent = nullptr);

    const options::OptionDef& def() const { return m_def; }
    QString name() const { return objectName(); }
    // "Sampling frequency" for --sampling-frequency.
    static QString title(const options::OptionDef& def);
    // The label for the form's left column; null for a switch (its check box has the text).
    QLabel* label() const { return m_label; }

    // The value as the CLI reads it ("true", "500", "cuda,nvtx", "repeat:3"); an empty text
    // field reads as the option's default.
    QString value() const;
    void setValue(const QString& value);
    // Greys the field out and says why; an empty reason makes it available again (unless the
    // definition says it is not available in this build).
    void setUnavailable(const QString& reason);
    // The same for one value of a choice or a list ("cuda" of --trace).
    void setValueUnavailable(const QString& value, const QString& reason);
    // Whether the option matters with the form's other values (its onlyWhen condition).
    void setApplies(bool applies);
    bool isAvailable() const { return m_available; }

signals:
    void changed();

private:
    void build();
    void updateEnabled();
    QString tooltip(const QString& unavailableReason) const;

    options::OptionDef m_def;
    QLabel* m_label = nullptr;
    QCheckBox* m_switch = nullptr;
    QComboBox* m_choice = nullptr;
    QSpinBox* m_count = nullptr;  // the N of "repeat:N" choices
    QList<QCheckBox*> m_items;    // list values, in the definition's order
    QDoubleSpinBox* m_number = nullptr;
    QLineEdit* m_text = nullptr;
    bool m_available = true, m_applies = true;
    QString m_buildReason;  // why the definition (or this build) makes it unavailable
};

}  // namespace sl::viewer
