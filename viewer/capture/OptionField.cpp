#include "viewer/capture/OptionField.h"

#include <limits>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "model/options/OptionParser.h"
#include "viewer/capture/OptionText.h"

namespace sl::viewer {

namespace {

using options::ValueKind;

// "repeat:N" and "N" (a number alone) take a number.
bool takesNumber(const QString& valueName) {
    return valueName == "N" || valueName.endsWith(":N");
}

QString unitSuffix(std::string_view valueName) {
    if (valueName == "HZ") return " Hz";
    if (valueName == "NS") return " ns";
    if (valueName == "MS") return " ms";
    if (valueName == "SEC") return " s";
    return {};
}

constexpr int kListColumns = 3;

// In a scrolling form the wheel scrolls the form: it changes a value only in the field the user
// clicked into, never in one that passes under the pointer.
template <class Base>
class ScrollSafe : public Base {
public:
    ScrollSafe() { this->setFocusPolicy(Qt::StrongFocus); }

protected:
    void wheelEvent(QWheelEvent* e) override {
        if (this->hasFocus())
            Base::wheelEvent(e);
        else
            e->ignore();  // goes on to the scroll area
    }
};
constexpr int kMaxCount = 1'000'000;

}  // namespace

OptionField::OptionField(const options::OptionDef& def, QWidget* parent)
    : QWidget(parent), m_def(def) {
    setObjectName(optionText(def.name));
    setProperty("option", optionText(def.name));
    if (def.support == options::Support::Unavailable) m_buildReason = optionText(def.note);
    m_available = m_buildReason.isEmpty();
    build();
    setValue(optionText(def.defaultValue));
    updateEnabled();
}

QString OptionField::title(const options::OptionDef& def) {
    // Acronyms and abbreviations in nsys's option names, as a label says them.
    static const QMap<QString, QString> words{
        {"cuda", "CUDA"},   {"gpu", "GPU"},       {"cpu", "CPU"},
        {"nvtx", "NVTX"},   {"osrt", "OS runtime"}, {"cpuctxsw", "CPU context switches"},
        {"env", "environment"}, {"mpi", "MPI"},   {"nic", "NIC"},
        {"ib", "InfiniBand"}, {"os", "OS"},       {"vm", "VM"},
        {"dx", "DirectX"},  {"opengl", "OpenGL"}, {"etw", "ETW"},
        {"api", "API"}};
    QStringList out;
    for (const QString& w : optionText(def.name).split('-')) out << words.value(w, w);
    QString t = out.join(' ');
    if (!t.isEmpty() && t[0].isLower()) t[0] = t[0].toUpper();
    return t;
}

void OptionField::build() {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    const QString valueName = optionText(m_def.valueName);
    switch (m_def.kind) {
        case ValueKind::Switch:
            m_switch = new QCheckBox(title(m_def));
            layout->addWidget(m_switch);
            connect(m_switch, &QCheckBox::toggled, this, &OptionField::changed);
            break;
        case ValueKind::Choice: {
            m_choice = new ScrollSafe<QComboBox>;
            for (const options::ValueDef& v : m_def.values) {
                if (v.hidden) continue;
                m_choice->addItem(optionText(v.name), optionText(v.name));
                if (v.support != options::Support::Implemented)
                    m_choice->setItemData(m_choice->count() - 1, optionText(v.note), Qt::ToolTipRole);
            }
            layout->addWidget(m_choice, 1);
            for (int i = 0; i < m_choice->count(); ++i)
                if (takesNumber(m_choice->itemText(i))) {
                    m_count = new ScrollSafe<QSpinBox>;
                    m_count->setRange(1, kMaxCount);
                    m_count->setObjectName(objectName() + "-count");
                    layout->addWidget(m_count);
                    connect(m_count, &QSpinBox::valueChanged, this, &OptionField::changed);
                    break;
                }
            connect(m_choice, &QComboBox::currentIndexChanged, this, [this] {
                updateEnabled();
                emit changed();
            });
            for (const options::ValueDef& v : m_def.values)
                if (v.support == options::Support::Unavailable)
                    setValueUnavailable(optionText(v.name), optionText(v.note));
            break;
        }
        case ValueKind::List: {
            // The values that work here in a grid; nsys's others (not available here) folded
            // under a button, still listed with why, so the form stays short.
            auto* column = new QVBoxLayout;
            column->setContentsMargins(0, 0, 0, 0);
            auto* grid = new QGridLayout;
            auto* otherGrid = new QGridLayout;
            int shown = 0, folded = 0;
            for (const options::ValueDef& v : m_def.values) {
                if (v.hidden || v.name == "none") continue;
                auto* box = new QCheckBox(optionText(v.name));
                box->setObjectName(objectName() + "-" + optionText(v.name));
                if (!v.note.empty()) box->setToolTip(optionText(v.note));
                const bool unavailable = v.support == options::Support::Unavailable;
                int& n = unavailable ? folded : shown;
                (unavailable ? otherGrid : grid)->addWidget(box, n / kListColumns, n % kListColumns);
                ++n;
                m_items << box;
                connect(box, &QCheckBox::toggled, this, &OptionField::changed);
                if (unavailable) setValueUnavailable(optionText(v.name), optionText(v.note));
            }
            column->addLayout(grid);
            if (folded > 0) {
                auto* toggle = new QToolButton;
                toggle->setObjectName(objectName() + "-more");
                toggle->setText(QString("%1 more nsys values, not available here").arg(folded));
                toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
                toggle->setArrowType(Qt::RightArrow);
                toggle->setCheckable(true);
                toggle->setAutoRaise(true);
                auto* others = new QWidget;
                others->setLayout(otherGrid);
                others->hide();
                connect(toggle, &QToolButton::toggled, this, [toggle, others](bool open) {
                    toggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
                    others->setVisible(open);
                });
                column->addWidget(toggle, 0, Qt::AlignLeft);
                column->addWidget(others);
            }
            layout->addLayout(column, 1);
            break;
        }
        case ValueKind::Integer:
        case ValueKind::Seconds: {
            m_number = new ScrollSafe<QDoubleSpinBox>;
            const bool seconds = m_def.kind == ValueKind::Seconds;
            const double min = seconds ? 0 : double(m_def.min);
            // An option without a default has an extra first step that means "not given".
            const double unset = m_def.defaultValue.empty() ? 1 : 0;
            m_number->setDecimals(seconds ? 3 : 0);
            m_number->setRange(min - unset, seconds ? options::kMaxSeconds : double(m_def.max));
            m_number->setSuffix(seconds ? QString(" s") : unitSuffix(m_def.valueName));
            if (unset) m_number->setSpecialValueText("not set");
            layout->addWidget(m_number, 1);
            connect(m_number, &QDoubleSpinBox::valueChanged, this, &OptionField::changed);
            break;
        }
        case ValueKind::Text:
        case ValueKind::Flag:
            m_text = new QLineEdit;
            m_text->setPlaceholderText(m_def.defaultValue.empty() ? valueName
                                                                  : optionText(m_def.defaultValue));
            layout->addWidget(m_text, 1);
            connect(m_text, &QLineEdit::textChanged, this, &OptionField::changed);
            break;
    }
    // The editor answers to the option's name too (findChild<QLineEdit*>("output")).
    for (QWidget* editor : std::initializer_list<QWidget*>{m_switch, m_choice, m_number, m_text})
        if (editor) editor->setObjectName(objectName());
    if (!m_switch) {
        m_label = new QLabel(title(m_def) + ":");
        m_label->setBuddy(this);
    }
}

QString OptionField::value() const {
    if (m_switch) return m_switch->isChecked() ? "true" : "false";
    if (m_choice) {
        const QString item = m_choice->currentData().toString();
        if (!takesNumber(item) || !m_count) return item;
        const QString n = QString::number(m_count->value());
        return item == "N" ? n : item.left(item.size() - 1) + n;
    }
    if (m_number) {
        if (!m_number->specialValueText().isEmpty() && m_number->value() == m_number->minimum())
            return {};  // "not set"
        return m_def.kind == ValueKind::Seconds ? QString::number(m_number->value(), 'g', 12)
                                                : QString::number(qint64(m_number->value()));
    }
    if (m_text) {
        const QString t = m_text->text().trimmed();
        return t.isEmpty() ? optionText(m_def.defaultValue) : t;
    }
    QStringList on;
    for (QCheckBox* box : m_items)
        if (box->isChecked()) on << box->text();
    return on.isEmpty() ? QStringLiteral("none") : on.join(',');
}

void OptionField::setValue(const QString& v) {
    const QSignalBlocker block(this);
    if (m_switch) {
        bool b = false;
        m_switch->setChecked(options::parseBool(v.toStdString(), &b) && b);
    } else if (m_choice) {
        int index = m_choice->findData(v);
        if (index < 0)  // a number for "N" or "repeat:N"
            for (int i = 0; i < m_choice->count() && index < 0; ++i) {
                const QString item = m_choice->itemText(i);
                if (!takesNumber(item)) continue;
                const QString prefix = item.left(item.size() - 1);
                bool ok = false;
                const int n = v.startsWith(prefix) ? v.mid(prefix.size()).toInt(&ok) : 0;
                if (ok && n > 0 && m_count) m_count->setValue(n), index = i;
            }
        const QSignalBlocker blockChoice(m_choice);
        m_choice->setCurrentIndex(std::max(0, index));
    } else if (m_number) {
        const QSignalBlocker blockNumber(m_number);
        bool ok = false;
        const double n = v.toDouble(&ok);
        m_number->setValue(ok ? n : m_number->minimum());  // "" is "not set" where allowed
    } else if (m_text) {
        const QSignalBlocker blockText(m_text);
        m_text->setText(v == optionText(m_def.defaultValue) ? QString() : v);
    } else {
        const QStringList on = v.split(',');
        for (QCheckBox* box : m_items) {
            const QSignalBlocker blockBox(box);
            box->setChecked(on.contains(box->text()));
        }
    }
    updateEnabled();
}

void OptionField::setUnavailable(const QString& reason) {
    m_available = reason.isEmpty() && m_buildReason.isEmpty();
    setToolTip(tooltip(reason.isEmpty() ? m_buildReason : reason));
    if (m_label) m_label->setToolTip(toolTip());
    updateEnabled();
}

void OptionField::setValueUnavailable(const QString& value, const QString& reason) {
    if (m_choice) {
        const int i = m_choice->findData(value);
        auto* model = qobject_cast<QStandardItemModel*>(m_choice->model());
        if (i < 0 || !model) return;
        model->item(i)->setEnabled(reason.isEmpty());
        model->item(i)->setToolTip(reason);
    }
    for (QCheckBox* box : m_items)
        if (box->text() == value) {
            box->setEnabled(reason.isEmpty());
            box->setToolTip(reason);
            if (!reason.isEmpty()) box->setChecked(false);  // never ask for what cannot be done
        }
}

void OptionField::setApplies(bool applies) {
    m_applies = applies;
    updateEnabled();
}

void OptionField::updateEnabled() {
    if (toolTip().isEmpty()) setToolTip(tooltip(m_buildReason));
    const bool on = m_available && m_buildReason.isEmpty() && m_applies;
    setEnabled(on);
    if (m_label) m_label->setEnabled(on);
    if (m_count && m_choice) m_count->setEnabled(takesNumber(m_choice->currentData().toString()));
}

QString OptionField::tooltip(const QString& unavailableReason) const {
    QString t = "--" + optionText(m_def.name);
    if (m_def.shortName) t += ", -" + QString(QChar(m_def.shortName));
    t += ": " + optionText(m_def.help);
    if (m_def.support == options::Support::Different) t += "\nDiffers from nsys: " + optionText(m_def.note);
    if (!unavailableReason.isEmpty()) t += "\nNot available here: " + unavailableReason;
    return t;
}

}  // namespace sl::viewer
