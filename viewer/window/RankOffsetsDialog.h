#pragma once
// Timeline > Rank Offsets... of a merged tab (issue #20): one row per report with its rank, the
// wall-clock alignment applied and an editable offset in microseconds. Accepting gives a request
// that re-opens the same reports with those offsets. GUI thread.
#include <QDialog>
#include <vector>

#include "model/merge/OpenMerged.h"

class QTableWidget;

namespace sl::viewer {

class RankOffsetsDialog : public QDialog {
    Q_OBJECT
public:
    RankOffsetsDialog(const MergeRequest& request, const std::vector<MergedPart>& parts,
                      QWidget* parent = nullptr);
    // The request with the offsets as edited (the paths of the parts, folders expanded).
    MergeRequest request() const;
    QTableWidget* table() const { return m_table; }

private:
    MergeRequest m_request;
    std::vector<MergedPart> m_parts;
    QTableWidget* m_table = nullptr;
};

}  // namespace sl::viewer
