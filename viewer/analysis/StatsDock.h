#pragma once
// The Stats dock: the standard summaries (CUDA API, GPU kernels, memory operations by time and
// size, NVTX ranges, OS runtime, and every other report `sightline stats` knows) for the whole
// report or for the selected time range, computed by the same code as `sightline stats`
// (model/analysis/StatsReports.h) off the GUI thread (JobTracker: the newest request wins). Copy as TSV uses the CLI's formatter.
// GUI thread.
#include <QAbstractTableModel>
#include <QDockWidget>
#include <memory>

#include "model/analysis/StatsReports.h"

class QComboBox;
class QLabel;
class QTableView;

namespace sl::viewer {

// A read-only model over one analysis::Table; SortRole gives numbers for numeric columns.
class StatsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int SortRole = Qt::UserRole + 1;
    using QAbstractTableModel::QAbstractTableModel;
    void setTable(analysis::Table table);
    const analysis::Table& table() const { return m_table; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    analysis::Table m_table;
};

class StatsDock : public QDockWidget {
    Q_OBJECT
public:
    explicit StatsDock(std::shared_ptr<const Report> report, QWidget* parent = nullptr);

    StatsTableModel* model() const { return m_model; }
    QComboBox* reportBox() const { return m_reportBox; }
    QComboBox* scopeBox() const { return m_scope; }
    QString tsv() const;

public slots:
    void setReport(const QString& name);      // "cuda_gpu_kern_sum"
    void setSelectionScope(bool selection);   // false: the whole report
    void setSelection(qint64 t0, qint64 t1);  // the range used in selection scope
    void refresh();
    void copyTsv() const;

signals:
    void tableReady();

private:
    void showTable(Result<analysis::Table> table);

    std::shared_ptr<const Report> m_report;
    qint64 m_selT0 = 0, m_selT1 = 0;
    StatsTableModel* m_model = nullptr;
    QComboBox* m_reportBox = nullptr;
    QComboBox* m_scope = nullptr;
    QLabel* m_status = nullptr;
    QTableView* m_view = nullptr;
};

}  // namespace sl::viewer
