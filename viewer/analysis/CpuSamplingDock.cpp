#include "viewer/analysis/CpuSamplingDock.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

#include "viewer/analysis/TimeText.h"
#include "viewer/jobs/JobTracker.h"

namespace sl::viewer {

CpuSamplingDock::CpuSamplingDock(std::shared_ptr<const Report> report, QWidget* parent)
    : QDockWidget(tr("CPU sampling"), parent), m_report(std::move(report)) {
    setObjectName(QStringLiteral("CpuSamplingDock"));
    buildUi();
    setSelection(0, 0);  // the whole report until something is selected
}

QTreeView* CpuSamplingDock::makeView(SampleTreeModel::View v) {
    const int k = static_cast<int>(v);
    m_models[k] = new SampleTreeModel(v, this);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_models[k]);
    proxy->setSortRole(SampleTreeModel::SortRole);
    proxy->setFilterKeyColumn(SampleTreeModel::FunctionCol);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy->setRecursiveFilteringEnabled(true);  // keep the paths to matching functions
    proxy->setAutoAcceptChildRows(true);        // and what is below a match
    m_proxies[k] = proxy;
    auto* view = new QTreeView(m_tabs);
    view->setObjectName(v == SampleTreeModel::View::BottomUp  ? QStringLiteral("samplingBottomUp")
                        : v == SampleTreeModel::View::TopDown ? QStringLiteral("samplingTopDown")
                                                              : QStringLiteral("samplingFlat"));
    m_views[k] = view;
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(
        v == SampleTreeModel::View::TopDown ? SampleTreeModel::TotalCol : SampleTreeModel::SelfCol,
        Qt::DescendingOrder);
    view->setUniformRowHeights(true);  // lets large trees scroll fast
    view->setRootIsDecorated(v != SampleTreeModel::View::Flat);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->header()->setSectionResizeMode(SampleTreeModel::FunctionCol, QHeaderView::Interactive);
    view->header()->resizeSection(SampleTreeModel::FunctionCol, 320);
    // activated: a double-click, or Enter on the current row.
    connect(view, &QTreeView::activated, this, [this](const QModelIndex& index) {
        const QVariant f = index.data(SampleTreeModel::FunctionIndexRole);
        if (f.isValid() && m_tree && f.toUInt() < m_tree->functions().size())
            emit functionActivated(f.toUInt());
    });
    return view;
}

void CpuSamplingDock::buildUi() {
    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    auto* top = new QHBoxLayout;
    m_header = new QLabel(body);
    m_header->setObjectName(QStringLiteral("samplingHeader"));
    m_filter = new QLineEdit(body);
    m_filter->setObjectName(QStringLiteral("samplingFilter"));
    m_filter->setPlaceholderText(tr("Filter functions"));
    m_filter->setClearButtonEnabled(true);
    top->addWidget(m_header, 1);
    top->addWidget(m_filter, 1);
    layout->addLayout(top);
    auto* highlight = new QHBoxLayout;
    m_highlight = new QLabel(body);
    m_highlight->setObjectName(QStringLiteral("samplingHighlight"));
    m_clearHighlight = new QPushButton(tr("Clear highlight"), body);
    m_clearHighlight->setObjectName(QStringLiteral("samplingClearHighlight"));
    connect(m_clearHighlight, &QPushButton::clicked, this, [this] {
        setHighlightText({});
        emit highlightCleared();
    });
    highlight->addWidget(m_highlight, 1);
    highlight->addWidget(m_clearHighlight);
    layout->addLayout(highlight);
    setHighlightText({});
    m_tabs = new QTabWidget(body);
    m_tabs->addTab(makeView(SampleTreeModel::View::BottomUp), tr("Bottom-up"));
    m_tabs->addTab(makeView(SampleTreeModel::View::TopDown), tr("Top-down"));
    m_tabs->addTab(makeView(SampleTreeModel::View::Flat), tr("Flat"));
    layout->addWidget(m_tabs, 1);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        for (auto* p : m_proxies) p->setFilterFixedString(text);
    });
    setWidget(body);
}

void CpuSamplingDock::setHighlightText(const QString& function) {
    m_highlight->setText(function.isEmpty()
                             ? QString()
                             : tr("Timeline: samples through %1 stay bright").arg(function));
    m_highlight->setVisible(!function.isEmpty());
    m_clearHighlight->setVisible(!function.isEmpty());
}

void CpuSamplingDock::setSelection(qint64 t0, qint64 t1, const std::vector<uint32_t>& tracks) {
    analysis::SampleRequest req;
    QString range = tr("whole report");
    if (t1 > t0) {
        req.t0 = t0;
        req.t1 = t1;
        const int64_t origin = m_report->timeOrigin();
        range = tr("%1 .. %2").arg(timestampText(t0 - origin), timestampText(t1 - origin));
    }
    // Rows stand for their threads: a selected "CUDA API" row shows that thread's samples.
    for (uint32_t t : tracks) {
        if (t >= m_report->tracks.size()) continue;
        const TrackKey& k = m_report->tracks[t].key;
        if (schemaOf(k.kind).owner == OwnerKind::Thread) req.threads.emplace_back(k.pid, k.tid);
    }
    std::sort(req.threads.begin(), req.threads.end());
    req.threads.erase(std::unique(req.threads.begin(), req.threads.end()), req.threads.end());
    if (!tracks.empty()) {
        range += tr(", %n thread(s)", nullptr, static_cast<int>(req.threads.size()));
        // Rows without threads (GPU streams only): no samples, rather than every thread's.
        if (req.threads.empty()) req.threads.emplace_back(INT64_MIN, INT64_MIN);
    }
    m_header->setText(tr("Computing (%1) ...").arg(range));
    JobTracker::instance().start(
        this, QStringLiteral("samples"),
        [req, report = m_report](const std::atomic<bool>& cancel) mutable {
            req.cancel = &cancel;
            return std::make_shared<const analysis::SampleTree>(
                analysis::SampleTree::compute(*report, req));
        },
        [this, range](std::shared_ptr<const analysis::SampleTree> tree) { showTree(tree, range); });
}

void CpuSamplingDock::showTree(std::shared_ptr<const analysis::SampleTree> tree,
                               const QString& range) {
    m_tree = std::move(tree);
    for (auto* m : m_models) m->setTree(m_tree);
    m_header->setText(tr("%L1 samples, %L2 distinct stacks (%3)")
                          .arg(static_cast<qlonglong>(m_tree->sampleCount()))
                          .arg(static_cast<qulonglong>(m_tree->stackCount()))
                          .arg(range));
    emit treeReady();
}

}  // namespace sl::viewer
