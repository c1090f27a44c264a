#include "viewer/analysis/FindBar.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace sl::viewer {

FindBar::FindBar(std::shared_ptr<const Report> report, QWidget* parent) : QWidget(parent), m_report(std::move(report)) {
    setObjectName(QStringLiteral("FindBar"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_edit = new QLineEdit(this);
    m_edit->setObjectName(QStringLiteral("findEdit"));
    m_edit->setPlaceholderText(tr("Find event names (Enter: next, Shift+Enter: previous)"));
    m_edit->setClearButtonEnabled(true);
    m_regex = new QCheckBox(tr("Regex"), this);
    auto* prev = new QPushButton(tr("Previous"), this);
    auto* next = new QPushButton(tr("Next"), this);
    m_mode = new QComboBox(this);
    m_mode->addItem(tr("Show all events"), static_cast<int>(FilterMode::Off));
    m_mode->addItem(tr("Dim non-matching"), static_cast<int>(FilterMode::Dim));
    m_mode->addItem(tr("Hide non-matching"), static_cast<int>(FilterMode::Hide));
    m_status = new QLabel(this);
    layout->addWidget(m_edit, 3);
    layout->addWidget(m_regex);
    layout->addWidget(prev);
    layout->addWidget(next);
    layout->addWidget(m_mode);
    layout->addWidget(m_status, 1);
    connect(next, &QPushButton::clicked, this, &FindBar::findNext);
    connect(prev, &QPushButton::clicked, this, &FindBar::findPrevious);
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        if (QApplication::keyboardModifiers() & Qt::ShiftModifier) findPrevious();
        else findNext();
    });
    connect(m_edit, &QLineEdit::textChanged, this, [this] {
        m_cursor = -1;
        updateMask();
    });
    connect(m_regex, &QCheckBox::toggled, this, [this] {
        m_cursor = -1;
        updateMask();
    });
    connect(m_mode, qOverload<int>(&QComboBox::currentIndexChanged), this, &FindBar::updateMask);
}

FindBar::FilterMode FindBar::filterMode() const { return static_cast<FilterMode>(m_mode->currentData().toInt()); }

size_t FindBar::matchCount() const { return m_all ? m_all->rowCount() : 0; }

bool FindBar::matches(uint32_t name) const {
    if (!m_mask || filterMode() == FilterMode::Off) return true;
    return name < m_mask->size() && (*m_mask)[name];
}

void FindBar::updateMask() {
    m_mask.reset();
    if (!m_edit->text().isEmpty()) {
        analysis::EventFilter f;
        f.text = m_edit->text().toStdString();
        f.regex = m_regex->isChecked();
        auto mask = analysis::matchingNameIds(*m_report, f);
        if (mask.ok()) {
            m_mask = std::make_shared<const std::vector<uint8_t>>(std::move(mask.value()));
            m_status->clear();
        } else {
            m_status->setText(QString::fromStdString(mask.error()));
        }
    }
    emit nameFilterChanged();
}

bool FindBar::refresh() {
    if (!m_all) {
        QApplication::setOverrideCursor(Qt::WaitCursor);
        std::vector<uint32_t> tracks;
        for (uint32_t i = 0; i < m_report->tracks.size(); ++i)
            if (m_report->tracks[i].key.kind != EventKind::Metric) tracks.push_back(i);
        m_all = std::make_unique<analysis::EventQuery>(m_report, std::move(tracks));
        QApplication::restoreOverrideCursor();
    }
    analysis::EventFilter f;
    f.text = m_edit->text().toStdString();
    f.regex = m_regex->isChecked();
    const auto& cur = m_all->filter();
    if (cur.text == f.text && cur.regex == f.regex && cur.active()) return true;
    const Status s = m_all->setFilter(f);
    if (!s.ok()) {
        m_status->setText(QString::fromStdString(s.error()));
        return false;
    }
    m_cursor = -1;
    return true;
}

void FindBar::step(int delta) {
    if (m_edit->text().isEmpty() || !refresh()) return;
    const auto n = static_cast<long long>(m_all->rowCount());
    if (n == 0) {
        m_status->setText(tr("No match"));
        return;
    }
    if (m_cursor < 0) m_cursor = delta > 0 ? 0 : n - 1;
    else m_cursor = ((m_cursor + delta) % n + n) % n;
    m_status->setText(tr("%L1 of %L2").arg(m_cursor + 1).arg(n));
    const analysis::EventRef e = m_all->eventAt(static_cast<size_t>(m_cursor));
    emit eventFound(e.track, e.index);
}

void FindBar::findNext() { step(1); }
void FindBar::findPrevious() { step(-1); }

void FindBar::focusFind() {
    m_edit->setFocus();
    m_edit->selectAll();
}

}  // namespace sl::viewer
