#include "viewer/analysis/DetailsPanel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "viewer/analysis/SelectionModel.h"

namespace sl::viewer {

DetailsPanel::DetailsPanel(SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection) {
    setObjectName(QStringLiteral("DetailsPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Field"), tr("Value")});
    m_tree->setRootIsDecorated(false);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->setWordWrap(true);
    layout->addWidget(m_tree);
    auto* copyAction = new QAction(tr("Copy"), this);
    copyAction->setShortcut(QKeySequence::Copy);
    copyAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copyAction, &QAction::triggered, this, &DetailsPanel::copy);
    addAction(copyAction);
    m_tree->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_tree->addAction(copyAction);
    connect(m_selection, &SelectionModel::changed, this, &DetailsPanel::refresh);
    refresh();
}

void DetailsPanel::refresh() {
    m_fields = m_selection->details(analysis::DetailForm::Full);
    m_tree->clear();
    for (const auto& f : m_fields) {
        auto* item = new QTreeWidgetItem(m_tree);
        item->setText(0, QString::fromStdString(f.field));
        item->setText(1, QString::fromStdString(f.value));
        item->setToolTip(1, item->text(1));
    }
}

QString DetailsPanel::text() const {
    QString out;
    for (const auto& f : m_fields)
        out += QString::fromStdString(f.field) + QLatin1Char('\t') +
               QString::fromStdString(f.value) + QLatin1Char('\n');
    return out;
}

void DetailsPanel::copy() const {
    QApplication::clipboard()->setText(text());
}

}  // namespace sl::viewer
