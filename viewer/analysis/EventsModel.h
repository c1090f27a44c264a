#pragma once
// A Qt table model over an analysis::EventQuery: one row per event of the chosen tracks,
// columns Start, Duration, End, Name, Row, Correlation ID, Bytes. Nothing per row is stored
// on the Qt side (the query holds uint32 permutations), so QTableView scrolls 10M rows
// smoothly. sort() and setFilter() reset the model. Each time column has one unit, chosen
// from its largest value when the tracks are set. GUI thread.
#include <QAbstractTableModel>
#include <memory>
#include <optional>

#include "model/analysis/EventQuery.h"
#include "viewer/analysis/TimeText.h"

namespace sl::viewer {

class EventsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Roles {
        ValueRole = Qt::UserRole + 1,  // the cell's raw number (ns, bytes, id) as qlonglong
        TrackRole,                     // the event's track index (quint32)
        IndexRole,                     // the event's index in its track (quint32)
    };

    explicit EventsModel(std::shared_ptr<const Report> report, QObject* parent = nullptr);

    // Shows the events of these tracks (opens sorted by start, no filter).
    void setTracks(const std::vector<uint32_t>& tracks);
    const analysis::EventQuery* query() const { return m_query.get(); }
    // A bad regular expression returns its error and keeps the previous filter.
    Status setFilter(const analysis::EventFilter& filter);
    analysis::EventRef eventAt(int row) const;
    std::optional<int> rowOf(analysis::EventRef event) const;
    static analysis::EventColumn columnOf(int section) {
        return static_cast<analysis::EventColumn>(section);
    }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    QString cellText(analysis::EventRef e, analysis::EventColumn c) const;

    std::shared_ptr<const Report> m_report;
    std::unique_ptr<analysis::EventQuery> m_query;
    TimeUnit m_timeUnit = TimeUnit::Ms;      // Start and End
    TimeUnit m_durationUnit = TimeUnit::Us;  // Duration
};

}  // namespace sl::viewer
