#pragma once
// The events view: a virtualized, sortable table of the events of one row (track) or of every
// kernel / CUDA API call / NVTX range / copy of the report, filterable by name (substring or
// regular expression) and duration. Selecting or clicking a row emits eventSelected; double-
// clicking also emits eventActivated and rangeRequested (the event padded by a quarter of its length on each side)
// so the timeline can zoom there. selectEvent() follows a selection made elsewhere. GUI thread.
#include <QWidget>
#include <memory>

#include "model/analysis/EventQuery.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;

namespace sl::viewer {

class EventsModel;

class EventsView : public QWidget {
    Q_OBJECT
public:
    explicit EventsView(std::shared_ptr<const Report> report, QWidget* parent = nullptr);

    EventsModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QComboBox* sourceBox() const { return m_source; }
    QLineEdit* filterEdit() const { return m_filter; }
    QCheckBox* regexBox() const { return m_regex; }
    QLineEdit* minDurationEdit() const { return m_minDuration; }
    QLineEdit* maxDurationEdit() const { return m_maxDuration; }
    QLabel* statusLabel() const { return m_status; }
    // The padded range a double-click on this event requests.
    static std::pair<int64_t, int64_t> zoomRangeFor(const Report& report, analysis::EventRef event);

public slots:
    void showTrack(quint32 track);
    void showKind(sl::EventKind kind);
    // Selects and scrolls to the event's row; when the current source does not hold the event,
    // switches to the event's track first (a name filter that hides it leaves nothing selected).
    void selectEvent(quint32 track, quint32 index);
    // Applies the filter fields now (they also apply by themselves shortly after typing).
    void applyFilter();

signals:
    void eventSelected(quint32 track, quint32 index);
    void eventActivated(quint32 track, quint32 index);
    void rangeRequested(qint64 t0, qint64 t1);

private:
    void buildUi();
    void fillSources();
    void sourceChanged(int comboIndex);
    void updateStatus();
    void activated(const QModelIndex& index);

    std::shared_ptr<const Report> m_report;
    EventsModel* m_model = nullptr;
    QComboBox* m_source = nullptr;
    QLineEdit* m_filter = nullptr;
    QCheckBox* m_regex = nullptr;
    QLineEdit* m_minDuration = nullptr;
    QLineEdit* m_maxDuration = nullptr;
    QLabel* m_status = nullptr;
    QTableView* m_table = nullptr;
    QTimer* m_filterTimer = nullptr;
    QString m_filterError;
    bool m_selecting = false;  // selectEvent() in progress: do not echo eventSelected
};

}  // namespace sl::viewer
