#include "viewer/analysis/StatsDock.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <sstream>

#include "model/analysis/TableFormatter.h"
#include "viewer/analysis/TimeText.h"
#include "viewer/jobs/JobTracker.h"
#include "viewer/widgets/NameColumn.h"

namespace sl::viewer {

void StatsTableModel::setTable(analysis::Table table) {
    beginResetModel();
    m_table = std::move(table);
    endResetModel();
}

int StatsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_table.rowCount());
}

int StatsTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_table.columns.size());
}

QVariant StatsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const auto col = static_cast<size_t>(index.column()), row = static_cast<size_t>(index.row());
    const analysis::TableColumn& c = m_table.columns[col];
    switch (role) {
        case Qt::DisplayRole:
            return QString::fromStdString(analysis::formatCell(m_table, col, row, "ns", true));
        case SortRole:
            if (c.isNull(row)) return {};
            if (c.type == analysis::CellType::Int)
                return QVariant::fromValue<qlonglong>(c.ints[row]);
            if (c.type == analysis::CellType::Real) return c.reals[row];
            return QString::fromStdString(c.texts[row]);
        case Qt::TextAlignmentRole:
            return c.type == analysis::CellType::Text ? QVariant()
                                                      : QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return {};
    }
}

QVariant StatsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    // Counts, times and sizes: the first click on a header shows the largest first.
    if (role == Qt::InitialSortOrderRole && orientation == Qt::Horizontal &&
        section < columnCount())
        return m_table.columns[static_cast<size_t>(section)].type == analysis::CellType::Text
                   ? Qt::AscendingOrder
                   : Qt::DescendingOrder;
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
    return QString::fromStdString(m_table.header(static_cast<size_t>(section)));
}

StatsDock::StatsDock(std::shared_ptr<const Report> report, QWidget* parent)
    : QDockWidget(tr("Stats"), parent), m_report(std::move(report)) {
    setObjectName(QStringLiteral("StatsDock"));
    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    auto* bar = new QHBoxLayout;
    m_reportBox = new QComboBox(body);
    m_reportBox->setObjectName(QStringLiteral("statsReport"));
    for (const analysis::ReportInfo* info : analysis::defaultReports())
        m_reportBox->addItem(
            QString::fromUtf8(info->title.data(), static_cast<qsizetype>(info->title.size())),
            QString::fromUtf8(info->name.data(), static_cast<qsizetype>(info->name.size())));
    for (const analysis::ReportInfo& info : analysis::allReports())
        if (!info.isDefault)
            m_reportBox->addItem(
                QString::fromUtf8(info.title.data(), static_cast<qsizetype>(info.title.size())),
                QString::fromUtf8(info.name.data(), static_cast<qsizetype>(info.name.size())));
    m_scope = new QComboBox(body);
    m_scope->addItem(tr("Whole report"));
    m_scope->addItem(tr("Selection"));
    auto* copy = new QPushButton(tr("Copy as TSV"), body);
    bar->addWidget(m_reportBox, 2);
    bar->addWidget(m_scope);
    bar->addWidget(copy);
    layout->addLayout(bar);
    m_model = new StatsTableModel(this);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_model);
    proxy->setSortRole(StatsTableModel::SortRole);
    m_view = new QTableView(body);
    m_view->setModel(proxy);
    m_view->setSortingEnabled(true);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setWordWrap(false);
    layout->addWidget(m_view, 1);
    m_status = new QLabel(body);
    layout->addWidget(m_status);
    setWidget(body);
    connect(m_reportBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            &StatsDock::refresh);
    connect(m_scope, qOverload<int>(&QComboBox::currentIndexChanged), this, &StatsDock::refresh);
    connect(copy, &QPushButton::clicked, this, &StatsDock::copyTsv);
    refresh();
}

void StatsDock::setReport(const QString& name) {
    const int i = m_reportBox->findData(name);
    if (i >= 0) m_reportBox->setCurrentIndex(i);
}

void StatsDock::setSelectionScope(bool selection) {
    m_scope->setCurrentIndex(selection ? 1 : 0);
}

void StatsDock::setSelection(qint64 t0, qint64 t1) {
    m_selT0 = t0;
    m_selT1 = t1;
    if (m_scope->currentIndex() == 1) refresh();
}

void StatsDock::refresh() {
    const std::string name = m_reportBox->currentData().toString().toStdString();
    analysis::StatsOptions options;
    if (m_scope->currentIndex() == 1) {
        if (m_selT1 <= m_selT0) {
            JobTracker::instance().cancel(this, QStringLiteral("stats"));
            m_model->setTable({});
            m_status->setText(tr("Select a time range on the timeline."));
            return;
        }
        options.start = m_selT0;
        options.end = m_selT1;
    }
    m_status->setText(tr("Computing..."));
    JobTracker::instance().start(
        this, QStringLiteral("stats"),
        // A superseded run stops at its next check of the flag (every 64 Ki events and
        // between the pool's items), so the newest request soon has the pool to itself.
        [name, options, report = m_report](const std::atomic<bool>& cancel) {
            analysis::StatsOptions run = options;
            run.cancel = &cancel;
            return analysis::runReport(*report, name, run);
        },
        [this](Result<analysis::Table> table) { showTable(std::move(table)); });
}

void StatsDock::showTable(Result<analysis::Table> table) {
    if (!table) {
        m_status->setText(QString::fromStdString(table.error()));
        m_model->setTable({});
    } else {
        analysis::Table& t = table.value();
        m_status->setText(t.skipped.empty()
                              ? tr("%L1 rows").arg(static_cast<qulonglong>(t.rowCount()))
                              : QString::fromStdString(t.skipped));
        m_model->setTable(std::move(t));
        fitNameColumn(m_view, columnTitled(m_view->model(), QStringLiteral("Name")));
    }
    emit tableReady();
}

QString StatsDock::tsv() const {
    std::ostringstream out;
    analysis::FormatOptions o;
    o.format = analysis::TableFormat::Tsv;
    analysis::writeTable(out, m_model->table(), o);
    return QString::fromStdString(out.str());
}

void StatsDock::copyTsv() const {
    QApplication::clipboard()->setText(tsv());
}

}  // namespace sl::viewer
