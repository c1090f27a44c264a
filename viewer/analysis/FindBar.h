#pragma once
// Find across the report: a name (substring or regular expression) with Next / Previous,
// which walks every matching event of every track in start order and emits eventFound (the
// timeline selects and shows it), plus a name filter mode that asks the timeline to dim or
// hide events whose names do not match (nameFilterChanged; matches() answers per string id).
// The index over all events is built on the first search. GUI thread.
#include <QWidget>
#include <memory>

#include "model/analysis/EventQuery.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace sl::viewer {

class FindBar : public QWidget {
    Q_OBJECT
public:
    enum class FilterMode { Off, Dim, Hide };

    explicit FindBar(std::shared_ptr<const Report> report, QWidget* parent = nullptr);

    QLineEdit* edit() const { return m_edit; }
    QCheckBox* regexBox() const { return m_regex; }
    QComboBox* modeBox() const { return m_mode; }
    QLabel* statusLabel() const { return m_status; }
    FilterMode filterMode() const;
    size_t matchCount() const;
    // For the timeline: whether string id `name` matches (true for every name while the
    // find text is empty or the mode is Off).
    bool matches(uint32_t name) const;
    const std::shared_ptr<const std::vector<uint8_t>>& matchMask() const { return m_mask; }

public slots:
    void findNext();
    void findPrevious();
    void focusFind();

signals:
    void eventFound(quint32 track, quint32 index);
    void nameFilterChanged();

private:
    bool refresh();  // applies the text to the index; false (and a message) on a bad expression
    void step(int delta);
    void updateMask();

    std::shared_ptr<const Report> m_report;
    std::unique_ptr<analysis::EventQuery> m_all;
    std::shared_ptr<const std::vector<uint8_t>> m_mask;
    QLineEdit* m_edit = nullptr;
    QCheckBox* m_regex = nullptr;
    QComboBox* m_mode = nullptr;
    QLabel* m_status = nullptr;
    long long m_cursor = -1;
};

}  // namespace sl::viewer
