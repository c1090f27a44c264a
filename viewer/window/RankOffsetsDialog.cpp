#include "viewer/window/RankOffsetsDialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

namespace sl::viewer {

namespace {
constexpr int kOffsetColumn = 3;
constexpr double kNsPerUs = 1000.0;
}  // namespace

RankOffsetsDialog::RankOffsetsDialog(const MergeRequest& request,
                                     const std::vector<MergedPart>& parts, QWidget* parent)
    : QDialog(parent), m_request(request), m_parts(parts) {
    setWindowTitle("Rank Offsets");
    auto* note = new QLabel(
        "Each report is placed by the wall-clock time its session started. A clock that was off "
        "can be corrected here: the offset (in microseconds) moves that report's events later.");
    note->setWordWrap(true);
    m_table = new QTableWidget(static_cast<int>(parts.size()), 4, this);
    m_table->setHorizontalHeaderLabels(
        {"Rank", "Report", "Alignment (\u00b5s)", "Offset (\u00b5s)"});
    for (int r = 0; r < static_cast<int>(parts.size()); ++r) {
        const MergedPart& p = parts[static_cast<size_t>(r)];
        auto item = [](const QString& s) {
            auto* i = new QTableWidgetItem(s);
            i->setFlags(i->flags() & ~Qt::ItemIsEditable);
            return i;
        };
        m_table->setItem(r, 0,
                         item(p.rank >= 0 ? QString::number(p.rank) + " (" +
                                                QString::fromStdString(p.rankSource) + ")"
                                          : QString("several")));
        m_table->setItem(r, 1, item(QString::fromStdString(p.path)));
        m_table->setItem(r, 2,
                         item(QString::number(static_cast<double>(p.alignNs) / kNsPerUs, 'f', 3)));
        auto* spin = new QDoubleSpinBox;
        spin->setDecimals(3);
        spin->setRange(-1e9, 1e9);  // +-1000 s
        spin->setValue(static_cast<double>(p.offsetNs) / kNsPerUs);
        m_table->setCellWidget(r, kOffsetColumn, spin);
    }
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->resizeColumnsToContents();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* l = new QVBoxLayout(this);
    l->addWidget(note);
    l->addWidget(m_table);
    l->addWidget(buttons);
    resize(720, 360);
}

MergeRequest RankOffsetsDialog::request() const {
    MergeRequest r;
    for (int row = 0; row < static_cast<int>(m_parts.size()); ++row) {
        const MergedPart& p = m_parts[static_cast<size_t>(row)];
        r.paths.push_back(p.path);
        const auto* spin = qobject_cast<QDoubleSpinBox*>(m_table->cellWidget(row, kOffsetColumn));
        const auto ns = static_cast<int64_t>(std::llround(spin->value() * kNsPerUs));
        if (ns != 0) r.offsetsNs[p.path] = ns;
    }
    return r;
}

}  // namespace sl::viewer
