#include "viewer/capture/RemoteBrowserDialog.h"

#include <QDialogButtonBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "viewer/capture/HostKeyPrompt.h"
#include "viewer/capture/RemoteCli.h"

namespace sl::viewer {

namespace {
constexpr int kTypeRole = Qt::UserRole;
}

RemoteBrowserDialog::RemoteBrowserDialog(const QString& sightline, const RemoteTarget& target,
                                         Pick pick, const QString& start, QWidget* parent)
    : QDialog(parent), m_sightline(sightline), m_target(target), m_pick(pick) {
    setWindowTitle(pick == Pick::Program ? "Program on " + target.host.trimmed()
                                         : "Working directory on " + target.host.trimmed());
    auto* l = new QVBoxLayout(this);
    m_path = new QLineEdit;
    m_path->setObjectName("remotePath");
    connect(m_path, &QLineEdit::returnPressed, this, [this] { list(m_path->text()); });
    l->addWidget(m_path);
    m_list = new QListWidget;
    m_list->setObjectName("remoteEntries");
    connect(m_list, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* item) {
        const QString type = item->data(kTypeRole).toString();
        const QString path = item->text() == ".." ? m_dir.section('/', 0, -2) : m_dir + "/" + item->text();
        if (type == "dir" || type == "link" || item->text() == "..")
            list(path.isEmpty() ? "/" : path);
        else if (m_pick == Pick::Program)
            accept();
    });
    l->addWidget(m_list, 1);
    m_error = new QLabel;
    m_error->setObjectName("remoteBrowseError");
    m_error->setWordWrap(true);
    m_error->setStyleSheet("color: #b00020;");
    l->addWidget(m_error);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(pick == Pick::Program ? "Choose program" : "Use this directory");
    connect(buttons, &QDialogButtonBox::accepted, this, &RemoteBrowserDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    l->addWidget(buttons);
    resize(560, 480);
    list(start);
}

QString RemoteBrowserDialog::errorText() const { return m_error->text(); }

void RemoteBrowserDialog::list(const QString& dir) {
    m_loading = true;
    m_error->setText("Listing...");
    QStringList args = QStringList{"remote", "ls"} + connectionArguments(m_target);
    if (!dir.isEmpty()) args << dir;
    args << "--format" << "json";
    runCliTrustingNewHostKey(this, m_sightline, args, [this](const CliResult& r) {
        m_loading = false;
        if (r.exitCode != 0) {
            m_error->setText(r.errorText());
            return;
        }
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        m_dir = o.value("dir").toString();
        m_path->setText(m_dir);
        m_list->clear();
        if (m_dir != "/") m_list->addItem("..");
        for (const QJsonValue& v : o.value("entries").toArray()) {
            const QJsonObject e = v.toObject();
            const QString type = e.value("type").toString();
            // Directories first would need a sort; ls already lists in name order, marks suffice.
            if (m_pick == Pick::Directory && type != "dir" && type != "link") continue;
            auto* item = new QListWidgetItem(e.value("name").toString());
            item->setData(kTypeRole, type);
            item->setToolTip(type);
            if (type == "dir") item->setText(item->text());
            if (type == "dir") item->setForeground(QColor("#1f4e9a"));
            if (type == "exec") item->setForeground(QColor("#2e7d32"));
            m_list->addItem(item);
        }
        m_error->clear();
    });
}

void RemoteBrowserDialog::accept() {
    if (m_pick == Pick::Directory) {
        m_chosen = m_dir;
    } else {
        const QListWidgetItem* item = m_list->currentItem();
        if (!item || item->text() == ".." || item->data(kTypeRole).toString() == "dir") {
            m_error->setText("Choose a program (an executable file) in the list.");
            return;
        }
        m_chosen = m_dir + (m_dir.endsWith('/') ? "" : "/") + item->text();
    }
    QDialog::accept();
}

}  // namespace sl::viewer
