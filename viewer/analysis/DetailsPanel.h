#pragma once
// The details panel: every field of the tab's selected event (SelectionModel), from the one
// details formatter (model/analysis/EventQueryDetails.h, whose tooltip form the timeline shows),
// including, for GPU work, the API call and thread that launched it; empty when nothing is
// selected. Fields can be copied (Ctrl+C copies "field<TAB>value" lines). GUI thread.
#include <QWidget>

#include "model/analysis/EventQueryDetails.h"

class QTreeWidget;

namespace sl::viewer {

class SelectionModel;

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(SelectionModel* selection, QWidget* parent = nullptr);

    const std::vector<analysis::EventField>& fields() const { return m_fields; }
    QTreeWidget* tree() const { return m_tree; }
    QString text() const;  // "field\tvalue" lines

public slots:
    void copy() const;

private slots:
    void refresh();  // the selection changed

private:
    SelectionModel* m_selection;
    QTreeWidget* m_tree = nullptr;
    std::vector<analysis::EventField> m_fields;
};

}  // namespace sl::viewer
