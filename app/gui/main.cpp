// `sightline-ui`: opens reports given on the command line or through File > Open and shows
// their summary. Loading runs off the GUI thread.
#include <QApplication>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QTabWidget>
#include <QTextBrowser>
#include <QFileInfo>
#include <QPointer>
#include <thread>

#include "model/rep/RepReader.h"
#include "viewer/ReportSummary.h"

namespace {

class MainWindow : public QMainWindow {
public:
    MainWindow() {
        setWindowTitle("Sightline");
        resize(1200, 800);
        m_tabs = new QTabWidget(this);
        m_tabs->setTabsClosable(true);
        connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int i) { delete m_tabs->widget(i); });
        setCentralWidget(m_tabs);
        auto* file = menuBar()->addMenu("&File");
        file->addAction("&Open...", QKeySequence::Open, this, [this] {
            QString p = QFileDialog::getOpenFileName(this, "Open report", {}, "Sightline reports (*.rep);;All files (*)");
            if (!p.isEmpty()) open(p);
        });
        file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
    }

    void open(const QString& path) {
        auto* view = new QTextBrowser;
        view->setHtml("Loading " + path.toHtmlEscaped() + "...");
        const int tab = m_tabs->addTab(view, QFileInfo(path).fileName());
        m_tabs->setCurrentIndex(tab);
        QPointer<QTextBrowser> guard(view);
        std::thread([guard, path] {
            auto r = sl::readReport(path.toStdString());
            QString html = r ? sl::viewer::reportSummaryHtml(**r, path)
                             : "<h2>Cannot open report</h2><p>" + QString::fromStdString(r.error()).toHtmlEscaped() + "</p>";
            QMetaObject::invokeMethod(qApp, [guard, html] {
                if (guard) guard->setHtml(html);
            });
        }).detach();
    }

private:
    QTabWidget* m_tabs;
};

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("Sightline");
    QApplication::setApplicationVersion(SIGHTLINE_VERSION);
    MainWindow w;
    for (const QString& a : QApplication::arguments().mid(1)) w.open(a);
    w.show();
    return QApplication::exec();
}
