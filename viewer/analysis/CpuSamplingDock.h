#pragma once
// The "CPU sampling" dock: where the sampled threads spent their time, for the timeline's
// selection (time range, and the threads of the selected rows) or the whole report when
// nothing is selected. Three views of one SampleTree (model/analysis/SampleTree.h): Bottom-up
// (functions by self samples, expanding to their callers), Top-down (the call tree) and Flat
// (function, module, self, total), each sortable, all filtered by the filter box. Computed off
// the GUI thread (JobTracker: the newest selection wins). Double-clicking a function emits functionActivated
// (the timeline then dims the samples that do not pass through it; "Clear highlight" undoes
// it). GUI thread.
#include <QDockWidget>
#include <memory>
#include <vector>

#include "model/analysis/SampleTree.h"
#include "viewer/analysis/SampleTreeModel.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTreeView;

namespace sl::viewer {

class CpuSamplingDock : public QDockWidget {
    Q_OBJECT
public:
    explicit CpuSamplingDock(std::shared_ptr<const Report> report, QWidget* parent = nullptr);

    // The newest computed tree (null before the first result).
    const analysis::SampleTree* tree() const { return m_tree.get(); }
    QLabel* header() const { return m_header; }
    QLineEdit* filterEdit() const { return m_filter; }
    QLabel* highlightLabel() const { return m_highlight; }
    QPushButton* clearHighlightButton() const { return m_clearHighlight; }
    QTabWidget* tabs() const { return m_tabs; }
    QTreeView* view(SampleTreeModel::View v) const { return m_views[static_cast<int>(v)]; }
    // The proxy (sorted, filtered) model a view shows.
    QSortFilterProxyModel* proxy(SampleTreeModel::View v) const {
        return m_proxies[static_cast<int>(v)];
    }

public slots:
    // [t0, t1) on the report clock, or everything when t1 <= t0; `tracks` (indices into the
    // report's tracks, any kind) select their threads; empty = every thread.
    void setSelection(qint64 t0, qint64 t1, const std::vector<uint32_t>& tracks = {});
    // Shows which function the timeline highlights ("" hides the line and its Clear button).
    void setHighlightText(const QString& function);

signals:
    void treeReady();  // tree() holds the newest selection's result
    // The user double-clicked a function: an index into tree()->functions().
    void functionActivated(quint32 function);
    void highlightCleared();

private:
    void buildUi();
    QTreeView* makeView(SampleTreeModel::View v);
    void showTree(std::shared_ptr<const analysis::SampleTree> tree, const QString& range);

    std::shared_ptr<const Report> m_report;
    std::shared_ptr<const analysis::SampleTree> m_tree;
    QLabel* m_header = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_highlight = nullptr;
    QPushButton* m_clearHighlight = nullptr;
    QTabWidget* m_tabs = nullptr;
    SampleTreeModel* m_models[3] = {};
    QSortFilterProxyModel* m_proxies[3] = {};
    QTreeView* m_views[3] = {};
};

}  // namespace sl::viewer
