#include "viewer/capture/RemoteReportsDialog.h"

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "viewer/capture/HostKeyPrompt.h"
#include "viewer/capture/RemoteCli.h"

namespace sl::viewer {

RemoteReportsDialog::RemoteReportsDialog(const QString& sightline, const RemoteTarget& target,
                                         const QString& folder, QWidget* parent)
    : QDialog(parent), m_sightline(sightline), m_target(target) {
    setWindowTitle("Reports on " + target.host.trimmed());
    auto* l = new QVBoxLayout(this);
    m_table = new QTableWidget(0, 6);
    m_table->setObjectName("remoteSessions");
    m_table->setHorizontalHeaderLabels({"Capture", "State", "Exit", "Started (UTC)", "Reports", "Command"});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { fetch(row); });
    l->addWidget(m_table, 1);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel("Save to:"));
    m_folder = new QLineEdit(folder);
    m_folder->setObjectName("fetchFolder");
    row->addWidget(m_folder, 1);
    auto* refreshButton = new QPushButton("Refresh");
    refreshButton->setObjectName("refreshRemoteReports");
    connect(refreshButton, &QPushButton::clicked, this, &RemoteReportsDialog::refresh);
    auto* fetchButton = new QPushButton("Fetch and open");
    fetchButton->setObjectName("fetchRemoteReport");
    connect(fetchButton, &QPushButton::clicked, this, [this] { fetch(m_table->currentRow()); });
    row->addWidget(refreshButton);
    row->addWidget(fetchButton);
    l->addLayout(row);
    m_message = new QLabel;
    m_message->setObjectName("remoteReportsMessage");
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->addWidget(m_message);
    resize(900, 420);
    refresh();
}

int RemoteReportsDialog::rows() const { return m_table->rowCount(); }
QString RemoteReportsDialog::idAt(int row) const { return m_table->item(row, 0)->text(); }
QString RemoteReportsDialog::stateAt(int row) const { return m_table->item(row, 1)->text(); }
QString RemoteReportsDialog::messageText() const { return m_message->text(); }

void RemoteReportsDialog::refresh() {
    m_busy = true;
    m_message->setText("Listing the captures on " + m_target.host.trimmed() + "...");
    runCliTrustingNewHostKey(this, m_sightline, QStringList{"remote", "list"} + connectionArguments(m_target) + QStringList{"--format", "json"},
           [this](const CliResult& r) {
               m_busy = false;
               if (r.exitCode != 0) {
                   m_message->setText(r.errorText());
                   return;
               }
               const QJsonArray sessions = QJsonDocument::fromJson(r.out.toUtf8()).array();
               m_table->setRowCount(0);
               // Newest first: ids start with their UTC start time.
               for (qsizetype i = sessions.size() - 1; i >= 0; --i) {
                   const QJsonObject s = sessions[i].toObject();
                   const int row = m_table->rowCount();
                   m_table->insertRow(row);
                   const int exit = s.value("exit_code").toInt(-1);
                   qint64 bytes = 0;
                   const QJsonArray reports = s.value("reports").toArray();
                   for (const QJsonValue& rep : reports) bytes += rep.toObject().value("bytes").toInteger();
                   const QStringList cells = {
                       s.value("id").toString(), s.value("state").toString(),
                       exit >= 0 ? QString::number(exit) : QString("-"), s.value("started").toString(),
                       reports.isEmpty() ? QString("none")
                                         : QString::number(reports.size()) + " (" + QLocale().formattedDataSize(bytes) + ")",
                       s.value("command").toString()};
                   for (int c = 0; c < cells.size(); ++c) m_table->setItem(row, c, new QTableWidgetItem(cells[c]));
               }
               m_table->resizeColumnsToContents();
               m_message->setText(m_table->rowCount() ? QString() : "No captures on " + m_target.host.trimmed() + ".");
               if (m_table->rowCount()) m_table->selectRow(0);
           });
}

void RemoteReportsDialog::fetch(int row) {
    if (row < 0 || row >= m_table->rowCount()) {
        m_message->setText("Choose a capture in the list.");
        return;
    }
    const QString id = idAt(row);
    const QString out = QDir(m_folder->text().isEmpty() ? QDir::currentPath() : m_folder->text()).absoluteFilePath(id + ".rep");
    m_busy = true;
    m_message->setText("Fetching " + id + "...");
    runCliTrustingNewHostKey(this, m_sightline,
           QStringList{"remote", "fetch"} + connectionArguments(m_target) + QStringList{id, "-o", out, "--quiet"},
           [this, id](const CliResult& r) {
               m_busy = false;
               if (r.exitCode != 0) {
                   m_message->setText(r.errorText());
                   return;
               }
               const QStringList paths = r.out.split('\n', Qt::SkipEmptyParts);
               m_message->setText("Fetched " + id + ": " + paths.join(", "));
               for (const QString& p : paths) emit reportFetched(p);
           });
}

}  // namespace sl::viewer
