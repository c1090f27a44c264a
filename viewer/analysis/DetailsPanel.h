#pragma once
// The details panel: every field of the selected event (model/analysis/EventQueryDetails.h),
// including, for GPU work, the API call and thread that launched it. Fields can be copied
// (Ctrl+C copies "field<TAB>value" lines). GUI thread.
#include <QWidget>

#include "model/analysis/EventQueryDetails.h"

class QTreeWidget;

namespace sl::viewer {

class AnalysisContext;

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(AnalysisContext* context, QWidget* parent = nullptr);

    const std::vector<analysis::EventField>& fields() const { return m_fields; }
    QTreeWidget* tree() const { return m_tree; }
    QString text() const;  // "field\tvalue" lines

public slots:
    void showEventDetails(quint32 track, quint32 index);
    void clear();
    void copy() const;

private:
    AnalysisContext* m_context;
    QTreeWidget* m_tree = nullptr;
    std::vector<analysis::EventField> m_fields;
};

}  // namespace sl::viewer
