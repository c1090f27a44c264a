#include "viewer/analysis/SelectionStatsDock.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "viewer/analysis/TimeText.h"
#include "viewer/jobs/JobTracker.h"
#include "viewer/widgets/NameColumn.h"

namespace sl::viewer {
namespace {

constexpr int kNameColumn = 1;  // of the events table

// Columns from `firstNumber` on hold counts, times and sizes: their first click sorts
// descending (largest first), as in nsys.
QTableWidget* makeTable(const QStringList& headers, int firstNumber, QWidget* parent) {
    auto* t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    t->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    // No sort column until the user clicks one: rows keep the computed order.
    t->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    for (int c = firstNumber; c < t->columnCount(); ++c)
        t->horizontalHeaderItem(c)->setData(Qt::InitialSortOrderRole, Qt::DescendingOrder);
    return t;
}

// A cell that shows `text` and sorts by `key` (numbers sort as numbers, not as text).
class SortItem : public QTableWidgetItem {
public:
    using QTableWidgetItem::QTableWidgetItem;
    bool operator<(const QTableWidgetItem& other) const override {
        const QVariant a = data(Qt::UserRole), b = other.data(Qt::UserRole);
        if (a.isValid() && b.isValid()) return a.toDouble() < b.toDouble();
        return QTableWidgetItem::operator<(other);
    }
};

QTableWidgetItem* cell(const QString& text, const QVariant& key = {}) {
    auto* item = new SortItem(text);
    if (key.isValid()) item->setData(Qt::UserRole, key);
    return item;
}

QString percent(double share) {
    return QStringLiteral("%1 %").arg(share * 100.0, 0, 'f', 2);
}

}  // namespace

SelectionStatsDock::SelectionStatsDock(std::shared_ptr<const Report> report, QWidget* parent)
    : QDockWidget(tr("Selection statistics"), parent), m_report(std::move(report)) {
    setObjectName(QStringLiteral("SelectionStatsDock"));
    buildUi();
}

void SelectionStatsDock::buildUi() {
    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    auto* top = new QHBoxLayout;
    m_header = new QLabel(tr("Select a time range on the timeline."), body);
    m_header->setObjectName(QStringLiteral("selectionHeader"));
    auto* copy = new QPushButton(tr("Copy as TSV"), body);
    copy->setObjectName(QStringLiteral("copyTsv"));
    connect(copy, &QPushButton::clicked, this, &SelectionStatsDock::copyTsv);
    top->addWidget(m_header, 1);
    top->addWidget(copy);
    layout->addLayout(top);
    m_tabs = new QTabWidget(body);
    m_events = makeTable({tr("Row"), tr("Name"), tr("Count"), tr("Total"), tr("Average"), tr("Min"),
                          tr("Max"), tr("Share")},
                         2, m_tabs);
    m_busy = makeTable(
        {tr("Device"), tr("Process"), tr("Context"), tr("Stream"), tr("Busy"), tr("Busy %")}, 4,
        m_tabs);
    m_copies =
        makeTable({tr("Kind"), tr("Count"), tr("Bytes"), tr("Duration"), tr("Bandwidth")}, 1, m_tabs);
    m_tabs->addTab(m_events, tr("Events"));
    m_tabs->addTab(m_busy, tr("GPU busy"));
    m_tabs->addTab(m_copies, tr("Memory copies"));
    layout->addWidget(m_tabs, 1);
    setWidget(body);
}

void SelectionStatsDock::setSelection(qint64 t0, qint64 t1, const std::vector<uint32_t>& tracks) {
    if (t1 <= t0) {
        clearSelection();
        return;
    }
    m_header->setText(tr("Computing %1 .. %2 ...")
                          .arg(timestampText(t0 - m_report->timeOrigin()),
                               timestampText(t1 - m_report->timeOrigin())));
    analysis::SelectionRequest req{t0, t1, tracks};
    JobTracker::instance().start(
        this, QStringLiteral("selection"),
        [req, report = m_report](const std::atomic<bool>& cancel) mutable {
            req.cancel = &cancel;
            return analysis::computeSelectionStats(*report, req);
        },
        [this](analysis::SelectionStats st) { showStats(std::move(st)); });
}

void SelectionStatsDock::clearSelection() {
    JobTracker::instance().cancel(this, QStringLiteral("selection"));
    m_stats = {};
    m_header->setText(tr("Select a time range on the timeline."));
    m_events->setRowCount(0);
    m_busy->setRowCount(0);
    m_copies->setRowCount(0);
}

void SelectionStatsDock::showStats(analysis::SelectionStats stats) {
    m_stats = std::move(stats);
    const int64_t origin = m_report->timeOrigin();
    m_header->setText(tr("%1 .. %2 (%3): %L4 events")
                          .arg(timestampText(m_stats.t0 - origin), timestampText(m_stats.t1 - origin),
                               durationText(m_stats.span()))
                          .arg(static_cast<qulonglong>(m_stats.eventCount())));
    fillEvents();
    fillBusy();
    fillCopies();
    emit statsReady();
}

void SelectionStatsDock::fillEvents() {
    m_events->setSortingEnabled(false);
    m_events->setRowCount(static_cast<int>(m_stats.groups.size()));
    // One unit a column (never "1.234568 s" above "10.000 us").
    int64_t maxTotal = 0, maxAverage = 0, maxMin = 0, maxMax = 0;
    for (const auto& g : m_stats.groups) {
        maxTotal = std::max(maxTotal, g.total);
        maxAverage = std::max(maxAverage, static_cast<int64_t>(g.average()));
        maxMin = std::max(maxMin, g.min);
        maxMax = std::max(maxMax, g.max);
    }
    const TimeUnit total = columnTimeUnit(maxTotal), average = columnTimeUnit(maxAverage),
                   min = columnTimeUnit(maxMin), max = columnTimeUnit(maxMax);
    int row = 0;
    for (const auto& g : m_stats.groups) {
        const QString title =
            QString::fromStdString(m_report->trackTitle(m_report->tracks[g.track]));
        m_events->setItem(row, 0, cell(title));
        m_events->setItem(row, 1, cell(QString::fromStdString(g.name)));
        m_events->setItem(row, 2,
                          cell(QString::number(g.count), QVariant::fromValue<qlonglong>(g.count)));
        m_events->setItem(
            row, 3, cell(durationText(g.total, total), QVariant::fromValue<qlonglong>(g.total)));
        m_events->setItem(
            row, 4, cell(durationText(static_cast<int64_t>(g.average()), average), g.average()));
        m_events->setItem(row, 5,
                          cell(durationText(g.min, min), QVariant::fromValue<qlonglong>(g.min)));
        m_events->setItem(row, 6,
                          cell(durationText(g.max, max), QVariant::fromValue<qlonglong>(g.max)));
        m_events->setItem(row, 7, cell(percent(g.share), g.share * 100.0));
        ++row;
    }
    m_events->setSortingEnabled(true);
    fitNameColumn(m_events, kNameColumn);  // measures at most 500 rows
}

void SelectionStatsDock::fillBusy() {
    m_busy->setSortingEnabled(false);
    m_busy->setRowCount(static_cast<int>(m_stats.devices.size() + m_stats.streams.size()));
    int row = 0;
    for (const auto& d : m_stats.devices) {
        m_busy->setItem(row, 0, cell(QString::number(d.device), d.device));
        m_busy->setItem(row, 1, cell(tr("all")));
        m_busy->setItem(row, 2, cell(tr("all")));
        m_busy->setItem(row, 3, cell(tr("all")));
        m_busy->setItem(row, 4, cell(durationText(d.busy), QVariant::fromValue<qlonglong>(d.busy)));
        m_busy->setItem(row, 5, cell(percent(d.share), d.share * 100.0));
        ++row;
    }
    for (const auto& s : m_stats.streams) {
        m_busy->setItem(row, 0, cell(QString::number(s.device), s.device));
        m_busy->setItem(row, 1,
                        cell(QString::number(s.pid), QVariant::fromValue<qlonglong>(s.pid)));
        m_busy->setItem(row, 2, cell(QString::number(s.context), s.context));
        m_busy->setItem(row, 3, cell(QString::number(s.stream), s.stream));
        m_busy->setItem(row, 4, cell(durationText(s.busy), QVariant::fromValue<qlonglong>(s.busy)));
        m_busy->setItem(row, 5, cell(percent(s.share), s.share * 100.0));
        ++row;
    }
    m_busy->setSortingEnabled(true);
    if (m_busy->rowCount() < 2000) m_busy->resizeColumnsToContents();  // measuring is per row
}

void SelectionStatsDock::fillCopies() {
    m_copies->setSortingEnabled(false);
    m_copies->setRowCount(static_cast<int>(m_stats.copies.size()));
    int row = 0;
    for (const auto& c : m_stats.copies) {
        m_copies->setItem(row, 0, cell(QString::fromStdString(c.label)));
        m_copies->setItem(row, 1,
                          cell(QString::number(c.count), QVariant::fromValue<qlonglong>(c.count)));
        m_copies->setItem(row, 2,
                          cell(QLocale().formattedDataSize(static_cast<qint64>(c.bytes)),
                               QVariant::fromValue<qulonglong>(c.bytes)));
        m_copies->setItem(
            row, 3, cell(durationText(c.duration), QVariant::fromValue<qlonglong>(c.duration)));
        m_copies->setItem(row, 4,
                          cell(QStringLiteral("%1 GB/s").arg(c.bytesPerSecond() / 1e9, 0, 'f', 3),
                               c.bytesPerSecond()));
        ++row;
    }
    m_copies->setSortingEnabled(true);
    if (m_copies->rowCount() < 2000) m_copies->resizeColumnsToContents();  // measuring is per row
}

QString SelectionStatsDock::tsv() const {
    return QString::fromStdString(analysis::selectionStatsTsv(*m_report, m_stats));
}

void SelectionStatsDock::copyTsv() const {
    QApplication::clipboard()->setText(tsv());
}

}  // namespace sl::viewer
