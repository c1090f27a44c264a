#include "viewer/analysis/EventsModel.h"

#include <algorithm>
#include <cstdlib>

#include "model/analysis/EventQueryColumns.h"
#include "viewer/analysis/TimeText.h"

namespace sl::viewer {

using analysis::EventColumn;

EventsModel::EventsModel(std::shared_ptr<const Report> report, QObject* parent)
    : QAbstractTableModel(parent), m_report(std::move(report)) {}

void EventsModel::setTracks(const std::vector<uint32_t>& tracks) {
    beginResetModel();
    m_query = std::make_unique<analysis::EventQuery>(m_report, tracks);
    // Each time column keeps one unit for all its rows (chosen from the largest value).
    const int64_t origin = m_report->timeOrigin();
    int64_t maxTime = 0, maxDuration = 0;
    for (uint32_t i : m_query->tracks()) {
        const Track& t = m_report->tracks[i];
        if (t.empty()) continue;
        maxTime = std::max({maxTime, std::abs(t.tMin - origin), std::abs(t.tMax - origin)});
        for (size_t e = 0; e < t.end.size(); ++e)
            maxDuration = std::max(maxDuration, t.end[e] - t.start[e]);
    }
    m_timeUnit = columnTimeUnit(maxTime);
    m_durationUnit = columnTimeUnit(maxDuration);
    endResetModel();
}

Status EventsModel::setFilter(const analysis::EventFilter& filter) {
    if (!m_query) return {};
    beginResetModel();
    Status s = m_query->setFilter(filter);
    endResetModel();
    return s;
}

analysis::EventRef EventsModel::eventAt(int row) const {
    return m_query && row >= 0 ? m_query->eventAt(static_cast<size_t>(row)) : analysis::EventRef{};
}

std::optional<int> EventsModel::rowOf(analysis::EventRef event) const {
    if (!m_query) return std::nullopt;
    const auto r = m_query->rowOf(event);
    if (!r) return std::nullopt;
    return static_cast<int>(*r);
}

int EventsModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_query) return 0;
    return static_cast<int>(std::min<size_t>(m_query->rowCount(), INT32_MAX));
}

int EventsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : analysis::kEventColumnCount;
}

QString EventsModel::cellText(analysis::EventRef e, EventColumn c) const {
    const Track& t = m_report->tracks[e.track];
    switch (c) {
        case EventColumn::Start:
        case EventColumn::End:
            return durationText(m_query->value(e, c) - m_report->timeOrigin(), m_timeUnit);
        case EventColumn::Duration:
            return t.schema().hasEnd ? durationText(m_query->value(e, c), m_durationUnit)
                                     : QString();
        case EventColumn::Name:
        case EventColumn::Row:
            return QString::fromStdString(m_query->text(e, c));
        case EventColumn::Correlation:
            return analysis::correlationColumn(t.key.kind) < 0
                       ? QString()
                       : QString::number(m_query->value(e, c));
        case EventColumn::Bytes:
            return analysis::bytesColumn(t.key.kind) < 0 ? QString()
                                                         : QString::number(m_query->value(e, c));
    }
    return {};
}

QVariant EventsModel::data(const QModelIndex& index, int role) const {
    if (!m_query || !index.isValid() || index.row() >= rowCount()) return {};
    const analysis::EventRef e = m_query->eventAt(static_cast<size_t>(index.row()));
    const EventColumn c = columnOf(index.column());
    switch (role) {
        case Qt::DisplayRole:
            return cellText(e, c);
        case Qt::ToolTipRole:
            return c == EventColumn::Name || c == EventColumn::Row ? cellText(e, c) : QVariant();
        case Qt::TextAlignmentRole:
            return c == EventColumn::Name || c == EventColumn::Row
                       ? QVariant()
                       : QVariant(Qt::AlignRight | Qt::AlignVCenter);
        case ValueRole:
            return QVariant::fromValue<qlonglong>(m_query->value(e, c));
        case TrackRole:
            return QVariant::fromValue<quint32>(e.track);
        case IndexRole:
            return QVariant::fromValue<quint32>(e.index);
        default:
            return {};
    }
}

QVariant EventsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    // Durations and sizes: the first click shows the largest first.
    if (role == Qt::InitialSortOrderRole && orientation == Qt::Horizontal)
        return columnOf(section) == EventColumn::Duration || columnOf(section) == EventColumn::Bytes
                   ? Qt::DescendingOrder
                   : Qt::AscendingOrder;
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return section + 1;
    return QString::fromUtf8(
        analysis::eventColumnTitle(columnOf(section)).data(),
        static_cast<qsizetype>(analysis::eventColumnTitle(columnOf(section)).size()));
}

void EventsModel::sort(int column, Qt::SortOrder order) {
    if (!m_query || column < 0 || column >= analysis::kEventColumnCount) return;
    const bool descending = order == Qt::DescendingOrder;
    if (m_query->sortColumn() == columnOf(column) && m_query->sortDescending() == descending)
        return;
    beginResetModel();
    m_query->sort(columnOf(column), descending);
    endResetModel();
}

}  // namespace sl::viewer
