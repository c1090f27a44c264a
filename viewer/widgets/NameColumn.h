#pragma once
// Tables whose rows are named by long demangled C++ names (selection statistics, stats, the
// compare tab's differences): the numeric columns are sized to their content, the name column
// takes the width that is left and elides in the middle, with the full name in its tooltip and
// a "Copy name" context action. Without this a 300-character template name pushes Count,
// Total, Avg, Min and Max off screen even at 1920 px. GUI thread.
#include <QString>

class QAbstractItemModel;
class QTableView;

namespace sl::viewer {

// Call after the model's rows change (columns are measured then). Other columns are capped at
// `maxOtherWidth` px (they elide too). A negative `nameColumn` only sizes the columns.
void fitNameColumn(QTableView* view, int nameColumn, int maxOtherWidth = 300);
// The horizontal section titled `title`, or -1.
int columnTitled(const QAbstractItemModel* model, const QString& title);

}  // namespace sl::viewer
