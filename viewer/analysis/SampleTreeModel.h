#pragma once
// A Qt item model over one view (bottom-up, top-down or flat) of a SampleTree
// (model/analysis/SampleTree.h): columns Function, Module, Self, Self %, Total, Total %.
// Items map to tree nodes by index (internalId = node), so the model costs nothing per node;
// sorting and the filter box are a QSortFilterProxyModel on top (SortRole gives numbers as
// numbers). Percentages are of all samples of the tree. GUI thread; the tree is immutable.
#include <QAbstractItemModel>
#include <memory>

#include "model/analysis/SampleTree.h"

namespace sl::viewer {

class SampleTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum class View { BottomUp, TopDown, Flat };
    enum Column {
        FunctionCol,
        ModuleCol,
        SelfCol,
        SelfPercentCol,
        TotalCol,
        TotalPercentCol,
        kColumns
    };
    enum Role { SortRole = Qt::UserRole, FunctionRole, FunctionIndexRole, NodeRole };

    explicit SampleTreeModel(View view, QObject* parent = nullptr);

    View view() const { return m_view; }
    void setTree(std::shared_ptr<const analysis::SampleTree> tree);
    const analysis::SampleTree* tree() const { return m_tree.get(); }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    const std::vector<analysis::SampleNode>* nodes() const;
    uint32_t nodeOf(const QModelIndex& index) const;

    View m_view;
    std::shared_ptr<const analysis::SampleTree> m_tree;
    std::vector<int> m_row;  // each node's row under its parent
};

}  // namespace sl::viewer
