#include "viewer/widgets/NameColumn.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QHelpEvent>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolTip>

namespace sl::viewer {
namespace {

constexpr char kNameColumnProperty[] = "slNameColumn";

// The full name as the tooltip of an (elided) name cell, unless the model has its own.
class FullNameDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    bool helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
                   const QModelIndex& index) override {
        if (event->type() != QEvent::ToolTip || index.data(Qt::ToolTipRole).isValid())
            return QStyledItemDelegate::helpEvent(event, view, option, index);
        const QString text = index.data(Qt::DisplayRole).toString();
        if (text.isEmpty()) return QStyledItemDelegate::helpEvent(event, view, option, index);
        QToolTip::showText(event->globalPos(), text, view);
        return true;
    }
};

void installOnce(QTableView* view) {
    if (view->property(kNameColumnProperty).isValid()) return;
    view->setProperty(kNameColumnProperty, -1);
    view->setTextElideMode(Qt::ElideMiddle);
    view->setWordWrap(false);
    auto* copy = new QAction(QObject::tr("Copy name"), view);
    copy->setObjectName(QStringLiteral("copyName"));
    QObject::connect(copy, &QAction::triggered, view, [view] {
        const int column = view->property(kNameColumnProperty).toInt();
        const QModelIndex current = view->currentIndex();
        if (column < 0 || !current.isValid()) return;
        QApplication::clipboard()->setText(
            current.siblingAtColumn(column).data(Qt::DisplayRole).toString());
    });
    view->addAction(copy);
    if (view->contextMenuPolicy() == Qt::DefaultContextMenu)
        view->setContextMenuPolicy(Qt::ActionsContextMenu);
}

}  // namespace

void fitNameColumn(QTableView* view, int nameColumn, int maxOtherWidth) {
    if (!view || !view->model()) return;
    installOnce(view);
    QHeaderView* header = view->horizontalHeader();
    const int previous = view->property(kNameColumnProperty).toInt();
    if (previous >= 0 && previous != nameColumn) {
        QAbstractItemDelegate* old = view->itemDelegateForColumn(previous);
        view->setItemDelegateForColumn(previous, nullptr);
        delete old;
    }
    if (nameColumn >= 0 && nameColumn < view->model()->columnCount() &&
        !view->itemDelegateForColumn(nameColumn))
        view->setItemDelegateForColumn(nameColumn, new FullNameDelegate(view));
    view->setProperty(kNameColumnProperty, nameColumn);
    header->setStretchLastSection(false);
    header->setResizeContentsPrecision(500);  // measure at most 500 rows (tables of 1M rows)
    for (int c = 0; c < view->model()->columnCount(); ++c) {
        if (c == nameColumn) continue;
        header->setSectionResizeMode(c, QHeaderView::Interactive);
        view->resizeColumnToContents(c);
        if (view->columnWidth(c) > maxOtherWidth) view->setColumnWidth(c, maxOtherWidth);
    }
    if (nameColumn >= 0 && nameColumn < view->model()->columnCount())
        header->setSectionResizeMode(nameColumn, QHeaderView::Stretch);
    else
        header->setStretchLastSection(true);
}

int columnTitled(const QAbstractItemModel* model, const QString& title) {
    if (!model) return -1;
    for (int c = 0; c < model->columnCount(); ++c)
        if (model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() == title) return c;
    return -1;
}

}  // namespace sl::viewer
