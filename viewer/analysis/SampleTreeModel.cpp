#include "viewer/analysis/SampleTreeModel.h"

#include <QLocale>

namespace sl::viewer {

SampleTreeModel::SampleTreeModel(View view, QObject* parent)
    : QAbstractItemModel(parent), m_view(view) {}

const std::vector<analysis::SampleNode>* SampleTreeModel::nodes() const {
    if (!m_tree) return nullptr;
    switch (m_view) {
        case View::BottomUp:
            return &m_tree->bottomUp();
        case View::TopDown:
            return &m_tree->topDown();
        case View::Flat:
            return &m_tree->flat();
    }
    return nullptr;
}

void SampleTreeModel::setTree(std::shared_ptr<const analysis::SampleTree> tree) {
    beginResetModel();
    m_tree = std::move(tree);
    m_row.clear();
    if (const auto* n = nodes()) {
        m_row.assign(n->size(), 0);
        for (const auto& node : *n)
            for (size_t k = 0; k < node.children.size(); ++k)
                m_row[node.children[k]] = static_cast<int>(k);
    }
    endResetModel();
}

uint32_t SampleTreeModel::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<uint32_t>(index.internalId()) : 0;  // invalid: the root
}

QModelIndex SampleTreeModel::index(int row, int column, const QModelIndex& parent) const {
    const auto* n = nodes();
    if (!n || row < 0 || column < 0 || column >= kColumns) return {};
    const auto& children = (*n)[nodeOf(parent)].children;
    if (static_cast<size_t>(row) >= children.size()) return {};
    return createIndex(row, column, static_cast<quintptr>(children[static_cast<size_t>(row)]));
}

QModelIndex SampleTreeModel::parent(const QModelIndex& child) const {
    const auto* n = nodes();
    if (!n || !child.isValid()) return {};
    const uint32_t p = (*n)[nodeOf(child)].parent;
    if (p == 0) return {};
    return createIndex(m_row[p], 0, static_cast<quintptr>(p));
}

int SampleTreeModel::rowCount(const QModelIndex& parent) const {
    const auto* n = nodes();
    if (!n || parent.column() > 0) return 0;
    return static_cast<int>((*n)[nodeOf(parent)].children.size());
}

int SampleTreeModel::columnCount(const QModelIndex&) const {
    return kColumns;
}

QVariant SampleTreeModel::data(const QModelIndex& index, int role) const {
    const auto* n = nodes();
    if (!n || !index.isValid()) return {};
    const uint32_t id = nodeOf(index);
    const analysis::SampleNode& node = (*n)[id];
    const analysis::SampleFunction& fn = m_tree->functions()[node.function];
    const double all = static_cast<double>(std::max<int64_t>(1, m_tree->sampleCount()));
    if (role == FunctionRole) return QString::fromStdString(fn.name);
    if (role == NodeRole) return id;
    if (role == FunctionIndexRole) return node.function;
    if (role == Qt::TextAlignmentRole)
        return index.column() >= SelfCol ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == Qt::ToolTipRole && index.column() <= ModuleCol)
        return QString::fromStdString(m_tree->functionText(node.function));
    if (role != Qt::DisplayRole && role != SortRole) return {};
    const bool sort = role == SortRole;
    switch (index.column()) {
        case FunctionCol:
            return QString::fromStdString(fn.name);
        case ModuleCol:
            return QString::fromStdString(fn.module);
        case SelfCol:
            return sort ? QVariant::fromValue<qlonglong>(node.self)
                        : QVariant(QLocale().toString(node.self));
        case TotalCol:
            return sort ? QVariant::fromValue<qlonglong>(node.total)
                        : QVariant(QLocale().toString(node.total));
        case SelfPercentCol:
        case TotalPercentCol: {
            const int64_t v = index.column() == SelfPercentCol ? node.self : node.total;
            const double pct = 100.0 * static_cast<double>(v) / all;
            return sort ? QVariant(pct) : QVariant(QStringLiteral("%1 %").arg(pct, 0, 'f', 2));
        }
        default:
            return {};
    }
}

QVariant SampleTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case FunctionCol:
            return m_view == View::BottomUp  ? tr("Function (expand: callers)")
                   : m_view == View::TopDown ? tr("Function (expand: callees)")
                                             : tr("Function");
        case ModuleCol:
            return tr("Module");
        case SelfCol:
            return tr("Self");
        case SelfPercentCol:
            return tr("Self %");
        case TotalCol:
            return tr("Total");
        case TotalPercentCol:
            return tr("Total %");
        default:
            return {};
    }
}

}  // namespace sl::viewer
