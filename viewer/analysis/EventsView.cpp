#include "viewer/analysis/EventsView.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "viewer/analysis/EventsModel.h"
#include "viewer/analysis/TimeText.h"

namespace sl::viewer {
namespace {

// Combo entries: a kind (all tracks of it) is stored as -kind, a track as its index.
constexpr EventKind kKindSources[] = {EventKind::Kernel,    EventKind::CudaApi,
                                      EventKind::NvtxRange, EventKind::Memcpy,
                                      EventKind::Mpi,       EventKind::OpenMp,
                                      EventKind::OsRuntime, EventKind::CpuSample,
                                      EventKind::Cublas,    EventKind::Cudnn,
                                      EventKind::Nccl};

}  // namespace

EventsView::EventsView(std::shared_ptr<const Report> report, QWidget* parent)
    : QWidget(parent), m_report(std::move(report)) {
    setObjectName(QStringLiteral("EventsView"));
    m_model = new EventsModel(m_report, this);
    buildUi();
    fillSources();
}

void EventsView::buildUi() {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("eventsSource"));
    m_source->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_source->setMinimumContentsLength(24);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("eventsFilter"));
    m_filter->setPlaceholderText(tr("Filter names"));
    m_filter->setClearButtonEnabled(true);
    m_regex = new QCheckBox(tr("Regex"), this);
    m_minDuration = new QLineEdit(this);
    m_minDuration->setPlaceholderText(tr("min duration (e.g. 10us)"));
    m_maxDuration = new QLineEdit(this);
    m_maxDuration->setPlaceholderText(tr("max duration"));
    bar->addWidget(m_source, 2);
    bar->addWidget(m_filter, 2);
    bar->addWidget(m_regex);
    bar->addWidget(m_minDuration, 1);
    bar->addWidget(m_maxDuration, 1);
    layout->addLayout(bar);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("eventsTable"));
    m_table->setModel(m_model);
    // Virtualization: fixed row heights and no per-row header, so Qt never measures rows.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(static_cast<int>(analysis::EventColumn::Start), 150);
    m_table->setColumnWidth(static_cast<int>(analysis::EventColumn::End), 150);
    m_table->setColumnWidth(static_cast<int>(analysis::EventColumn::Duration), 110);
    m_table->setColumnWidth(static_cast<int>(analysis::EventColumn::Name), 320);
    m_table->setColumnWidth(static_cast<int>(analysis::EventColumn::Row), 260);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setSortingEnabled(true);
    m_table->horizontalHeader()->setSortIndicator(0, Qt::AscendingOrder);
    m_table->setWordWrap(false);
    layout->addWidget(m_table, 1);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("eventsStatus"));
    layout->addWidget(m_status);

    m_filterTimer = new QTimer(this);
    m_filterTimer->setSingleShot(true);
    m_filterTimer->setInterval(250);
    connect(m_filterTimer, &QTimer::timeout, this, &EventsView::applyFilter);
    for (QLineEdit* e : {m_filter, m_minDuration, m_maxDuration})
        connect(e, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
    connect(m_regex, &QCheckBox::toggled, this, &EventsView::applyFilter);
    connect(m_source, qOverload<int>(&QComboBox::currentIndexChanged), this,
            &EventsView::sourceChanged);
    connect(m_table, &QTableView::doubleClicked, this, &EventsView::activated);
    // A click selects its row's event also when the row is current already (the tab's
    // selection may have been cleared or moved elsewhere since).
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const analysis::EventRef e = m_model->eventAt(index.row());
        if (e.valid()) emit eventSelected(e.track, e.index);
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, &EventsView::updateStatus);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (m_selecting || !current.isValid()) return;
                const analysis::EventRef e = m_model->eventAt(current.row());
                if (e.valid()) emit eventSelected(e.track, e.index);
            });
}

void EventsView::fillSources() {
    const QSignalBlocker block(m_source);
    m_source->clear();
    for (EventKind k : kKindSources) {
        const uint64_t n = m_report->eventCount(k);
        if (n == 0) continue;
        m_source->addItem(
            tr("All %1 (%L2)")
                .arg(QString::fromUtf8(schemaOf(k).label.data(),
                                       static_cast<qsizetype>(schemaOf(k).label.size())))
                .arg(static_cast<qulonglong>(n)),
            -static_cast<int>(k));
    }
    for (uint32_t i = 0; i < m_report->tracks.size(); ++i) {
        const Track& t = m_report->tracks[i];
        if (t.empty()) continue;
        m_source->addItem(QStringLiteral("%1 (%L2)")
                              .arg(QString::fromStdString(m_report->trackTitle(t)))
                              .arg(static_cast<qulonglong>(t.size())),
                          static_cast<int>(i));
    }
    if (m_source->count() > 0) {
        m_source->setCurrentIndex(0);
        sourceChanged(0);
    }
}

void EventsView::sourceChanged(int comboIndex) {
    if (comboIndex < 0) return;
    const int v = m_source->itemData(comboIndex).toInt();
    QApplication::setOverrideCursor(Qt::WaitCursor);
    if (v < 0)
        m_model->setTracks(
            analysis::EventQuery::tracksOfKind(*m_report, static_cast<EventKind>(-v)));
    else
        m_model->setTracks({static_cast<uint32_t>(v)});
    m_table->horizontalHeader()->setSortIndicator(0, Qt::AscendingOrder);
    applyFilter();
    QApplication::restoreOverrideCursor();
}

void EventsView::showTrack(quint32 track) {
    const int i = m_source->findData(static_cast<int>(track));
    if (i >= 0) m_source->setCurrentIndex(i);
}

void EventsView::showKind(EventKind kind) {
    const int i = m_source->findData(-static_cast<int>(kind));
    if (i >= 0) m_source->setCurrentIndex(i);
}

void EventsView::applyFilter() {
    m_filterTimer->stop();
    analysis::EventFilter f;
    f.text = m_filter->text().toStdString();
    f.regex = m_regex->isChecked();
    m_filterError.clear();
    if (!m_minDuration->text().trimmed().isEmpty()) {
        if (auto v = parseDurationText(m_minDuration->text()))
            f.minDuration = *v;
        else
            m_filterError = tr("'%1' is not a duration").arg(m_minDuration->text());
    }
    if (!m_maxDuration->text().trimmed().isEmpty()) {
        if (auto v = parseDurationText(m_maxDuration->text()))
            f.maxDuration = *v;
        else
            m_filterError = tr("'%1' is not a duration").arg(m_maxDuration->text());
    }
    if (m_model->query() && m_filterError.isEmpty()) {
        const auto& cur = m_model->query()->filter();
        const bool same = cur.text == f.text && cur.regex == f.regex &&
                          cur.minDuration == f.minDuration && cur.maxDuration == f.maxDuration;
        if (!same) {
            const Status s = m_model->setFilter(f);
            if (!s.ok()) m_filterError = QString::fromStdString(s.error());
        }
    }
    updateStatus();
}

void EventsView::updateStatus() {
    const analysis::EventQuery* q = m_model->query();
    QString text = q ? tr("%L1 of %L2 events")
                           .arg(static_cast<qulonglong>(q->rowCount()))
                           .arg(static_cast<qulonglong>(q->totalCount()))
                     : QString();
    if (!m_filterError.isEmpty()) text += QStringLiteral("  -  ") + m_filterError;
    m_status->setText(text);
}

std::pair<int64_t, int64_t> EventsView::zoomRangeFor(const Report& report, analysis::EventRef e) {
    const Track& t = report.tracks[e.track];
    const int64_t s = t.start[e.index], end = t.endAt(e.index);
    const int64_t pad = std::max<int64_t>((end - s) / 4, 500);
    return {s - pad, end + pad};
}

void EventsView::activated(const QModelIndex& index) {
    const analysis::EventRef e = m_model->eventAt(index.row());
    if (!e.valid()) return;
    emit eventSelected(e.track, e.index);  // selected first: the selection reveals its row
    emit eventActivated(e.track, e.index);
    const auto [t0, t1] = zoomRangeFor(*m_report, e);
    emit rangeRequested(t0, t1);
}

void EventsView::selectEvent(quint32 track, quint32 index) {
    auto row = m_model->rowOf({track, index});
    if (!row && m_model->query()) {
        // Not in the current source: follow the selection to the event's row, as nsys's
        // events view follows the selected timeline row (the name filter stays).
        const auto& tracks = m_model->query()->tracks();
        if (std::find(tracks.begin(), tracks.end(), track) == tracks.end()) {
            showTrack(track);
            row = m_model->rowOf({track, index});
        }
    }
    if (!row) return;
    // The table's own current row (its click came back through the selection): scrolling it
    // to the middle would move the rows under the mouse between the two clicks of a
    // double-click, so the second click would land on another event.
    if (m_table->selectionModel()->currentIndex().row() == *row) return;
    m_selecting = true;
    const QModelIndex idx = m_model->index(*row, 0);
    m_table->selectionModel()->setCurrentIndex(
        idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(idx, QAbstractItemView::PositionAtCenter);
    m_selecting = false;
}

}  // namespace sl::viewer
