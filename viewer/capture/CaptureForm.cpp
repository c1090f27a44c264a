#include "viewer/capture/CaptureForm.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "viewer/capture/ProfileCommandBuilder.h"

namespace sl::viewer {

namespace {

template <class W>
W* named(W* w, const char* name) {
    w->setObjectName(name);
    return w;
}

QWidget* row(std::initializer_list<QWidget*> widgets) {
    auto* w = new QWidget;
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    for (QWidget* c : widgets) l->addWidget(c);
    return w;
}

QLabel* reasonLabel(const char* name) {
    auto* l = named(new QLabel, name);
    l->setWordWrap(true);
    l->setStyleSheet("color: #a05a00;");
    l->hide();
    return l;
}

}  // namespace

CaptureForm::CaptureForm(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildProgramGroup());
    layout->addWidget(buildTraceGroup());
    layout->addWidget(buildTimingGroup());
    layout->addWidget(buildOutputGroup());
    layout->addStretch(1);
    setSettings(CaptureSettings());
    updateEnabled();
}

void CaptureForm::watch(QWidget* w) {
    if (auto* e = qobject_cast<QLineEdit*>(w))
        connect(e, &QLineEdit::textChanged, this, &CaptureForm::changed);
    else if (auto* c = qobject_cast<QCheckBox*>(w))
        connect(c, &QCheckBox::toggled, this, [this] {
            updateEnabled();
            emit changed();
        });
    else if (auto* s = qobject_cast<QSpinBox*>(w))
        connect(s, &QSpinBox::valueChanged, this, &CaptureForm::changed);
    else if (auto* d = qobject_cast<QDoubleSpinBox*>(w))
        connect(d, &QDoubleSpinBox::valueChanged, this, &CaptureForm::changed);
    else if (auto* b = qobject_cast<QComboBox*>(w))
        connect(b, &QComboBox::currentIndexChanged, this, [this] {
            updateEnabled();
            emit changed();
        });
}

QWidget* CaptureForm::buildProgramGroup() {
    auto* box = new QGroupBox("Program");
    auto* form = new QFormLayout(box);
    m_program = named(new QLineEdit, "program");
    m_program->setPlaceholderText("path of the program to profile, or a name in PATH");
    auto* browse = named(new QPushButton("..."), "browseProgram");
    connect(browse, &QPushButton::clicked, this, &CaptureForm::browseProgram);
    form->addRow("Program:", row({m_program, browse}));
    m_arguments = named(new QLineEdit, "arguments");
    m_arguments->setPlaceholderText("arguments, quoted as in a shell");
    form->addRow("Arguments:", m_arguments);
    m_workingDir = named(new QLineEdit, "workingDirectory");
    m_workingDir->setPlaceholderText("current directory");
    auto* browseDir = named(new QPushButton("..."), "browseDirectory");
    connect(browseDir, &QPushButton::clicked, this, &CaptureForm::browseDirectory);
    form->addRow("Working directory:", row({m_workingDir, browseDir}));

    m_env = named(new QTableWidget(0, 2), "environment");
    m_env->setHorizontalHeaderLabels({"Variable", "Value"});
    m_env->horizontalHeader()->setStretchLastSection(true);
    m_env->verticalHeader()->hide();
    m_env->setMaximumHeight(120);
    connect(m_env, &QTableWidget::itemChanged, this, &CaptureForm::changed);
    auto* add = named(new QPushButton("Add"), "addEnv");
    auto* remove = named(new QPushButton("Remove"), "removeEnv");
    connect(add, &QPushButton::clicked, this, [this] {
        const int r = m_env->rowCount();
        m_env->insertRow(r);
        m_env->setItem(r, 0, new QTableWidgetItem("NAME"));
        m_env->setItem(r, 1, new QTableWidgetItem(""));
        m_env->editItem(m_env->item(r, 0));
        emit changed();
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_env->currentRow() >= 0) m_env->removeRow(m_env->currentRow()), emit changed();
    });
    auto* envButtons = new QVBoxLayout;
    envButtons->addWidget(add);
    envButtons->addWidget(remove);
    envButtons->addStretch(1);
    auto* envRow = new QWidget;
    auto* envLayout = new QHBoxLayout(envRow);
    envLayout->setContentsMargins(0, 0, 0, 0);
    envLayout->addWidget(m_env);
    envLayout->addLayout(envButtons);
    form->addRow("Environment:", envRow);
    for (QWidget* w : {static_cast<QWidget*>(m_program), static_cast<QWidget*>(m_arguments),
                       static_cast<QWidget*>(m_workingDir)})
        watch(w);
    return box;
}

QWidget* CaptureForm::buildTraceGroup() {
    auto* box = new QGroupBox("Trace");
    auto* form = new QFormLayout(box);
    m_cuda = named(new QCheckBox("CUDA API and GPU activity"), "traceCuda");
    m_cudaMemory = named(new QCheckBox("CUDA memory usage"), "cudaMemoryUsage");
    m_cudaReason = reasonLabel("cudaReason");
    form->addRow(row({m_cuda, m_cudaMemory}));
    form->addRow(m_cudaReason);
    m_nvtx = named(new QCheckBox("NVTX ranges and marks"), "traceNvtx");
    form->addRow(m_nvtx);
    m_osrt = named(new QCheckBox("OS runtime calls longer than"), "traceOsrt");
    m_osrtThreshold = named(new QSpinBox, "osrtThreshold");
    m_osrtThreshold->setRange(0, 1'000'000'000);
    m_osrtThreshold->setSuffix(" ns");
    form->addRow(row({m_osrt, m_osrtThreshold}));
    m_gpuMetrics = named(new QCheckBox("GPU metrics of devices"), "gpuMetrics");
    m_gpuDevices = named(new QLineEdit, "gpuMetricsDevices");
    m_gpuDevices->setPlaceholderText("all, or indices such as 0,1");
    m_gpuFrequency = named(new QSpinBox, "gpuMetricsFrequency");
    m_gpuFrequency->setRange(1, 10000);
    m_gpuFrequency->setSuffix(" Hz");
    m_gpuReason = reasonLabel("gpuMetricsReason");
    form->addRow(row({m_gpuMetrics, m_gpuDevices, m_gpuFrequency}));
    form->addRow(m_gpuReason);
    m_cpuMetrics = named(new QCheckBox("CPU metrics (per-core utilization, memory)"), "cpuMetrics");
    form->addRow(m_cpuMetrics);
    m_sample = named(new QCheckBox("CPU samples of the process tree at"), "sampleCpu");
    m_samplingFrequency = named(new QSpinBox, "samplingFrequency");
    m_samplingFrequency->setRange(100, 8000);  // what the CLI accepts
    m_samplingFrequency->setSuffix(" Hz");
    m_backtrace = named(new QComboBox, "backtrace");
    m_backtrace->addItem("with call stacks (frame pointers)", "fp");
    m_backtrace->addItem("without call stacks", "none");
    form->addRow(row({m_sample, m_samplingFrequency, m_backtrace}));
    for (QWidget* w : std::initializer_list<QWidget*>{
             m_cuda, m_cudaMemory, m_nvtx, m_osrt, m_osrtThreshold, m_gpuMetrics, m_gpuDevices,
             m_gpuFrequency, m_cpuMetrics, m_sample, m_samplingFrequency, m_backtrace})
        watch(w);
    return box;
}

QWidget* CaptureForm::buildTimingGroup() {
    auto* box = new QGroupBox("When");
    auto* form = new QFormLayout(box);
    m_delay = named(new QDoubleSpinBox, "delay");
    m_delay->setRange(0, 1e6);
    m_delay->setDecimals(3);
    m_delay->setSuffix(" s");
    form->addRow("Delay before capture:", m_delay);
    m_duration = named(new QDoubleSpinBox, "duration");
    m_duration->setRange(0, 1e6);
    m_duration->setDecimals(3);
    m_duration->setSuffix(" s");
    m_duration->setSpecialValueText("until the program ends");
    form->addRow("Duration:", m_duration);
    m_range = named(new QComboBox, "captureRange");
    m_range->addItems({"None (capture everything)", "NVTX range", "cudaProfilerStart/Stop"});
    form->addRow("Capture range:", m_range);
    m_nvtxRange = named(new QLineEdit, "nvtxRange");
    m_nvtxRange->setPlaceholderText("range name (message)");
    m_nvtxDomain = named(new QLineEdit, "nvtxDomain");
    m_nvtxDomain->setPlaceholderText("domain (optional)");
    form->addRow("NVTX range @ domain:", row({m_nvtxRange, m_nvtxDomain}));
    m_rangeEnd = named(new QComboBox, "captureRangeEnd");
    m_rangeEnd->addItems({"stop", "stop-shutdown", "repeat"});
    m_repeatCount = named(new QSpinBox, "repeatCount");
    m_repeatCount->setRange(0, 100000);
    m_repeatCount->setSpecialValueText("every range");
    m_repeatCount->setPrefix("times: ");
    form->addRow("At the end of the range:", row({m_rangeEnd, m_repeatCount}));
    for (QWidget* w : std::initializer_list<QWidget*>{m_delay, m_duration, m_range, m_nvtxRange,
                                                      m_nvtxDomain, m_rangeEnd, m_repeatCount})
        watch(w);
    return box;
}

QWidget* CaptureForm::buildOutputGroup() {
    auto* box = new QGroupBox("Report");
    auto* form = new QFormLayout(box);
    m_output = named(new QLineEdit, "output");
    m_output->setPlaceholderText("report1.rep, report2.rep, ... in the working directory");
    m_output->setToolTip(
        "Patterns: %p process id, %h host name, %n the next free number, %q{NAME} environment "
        "variable, %% a percent sign");
    auto* browse = named(new QPushButton("..."), "browseOutput");
    connect(browse, &QPushButton::clicked, this, &CaptureForm::browseOutput);
    form->addRow("Output:", row({m_output, browse}));
    auto* help =
        new QLabel("%p process id, %h host name, %n next free number, %q{NAME} environment variable, "
                   "%% percent sign");
    help->setStyleSheet("color: gray;");
    form->addRow(help);
    m_overwrite = named(new QCheckBox("Overwrite an existing report"), "forceOverwrite");
    form->addRow(m_overwrite);
    watch(m_output);
    watch(m_overwrite);
    return box;
}

void CaptureForm::updateEnabled() {
    const bool cuda = !m_capsKnown || m_caps.cuda;
    const bool gpu = !m_capsKnown || m_caps.gpuMetrics;
    for (QWidget* w : {static_cast<QWidget*>(m_cuda), static_cast<QWidget*>(m_cudaMemory)}) {
        w->setEnabled(cuda);
        w->setToolTip(cuda ? QString() : m_caps.cudaReason);
    }
    m_cudaReason->setText(m_caps.cudaReason);
    m_cudaReason->setVisible(m_capsKnown && !cuda);
    m_gpuMetrics->setEnabled(gpu);
    m_gpuMetrics->setToolTip(gpu ? QString() : m_caps.gpuMetricsReason);
    m_gpuDevices->setEnabled(gpu && m_gpuMetrics->isChecked());
    m_gpuFrequency->setEnabled(gpu && m_gpuMetrics->isChecked());
    m_gpuReason->setText(m_caps.gpuMetricsReason);
    m_gpuReason->setVisible(m_capsKnown && !gpu);
    if (auto* model = qobject_cast<QStandardItemModel*>(m_range->model())) {
        QStandardItem* item = model->item(2);
        item->setEnabled(cuda);
        item->setToolTip(cuda ? QString() : m_caps.cudaReason);
    }
    m_osrtThreshold->setEnabled(m_osrt->isChecked());
    m_samplingFrequency->setEnabled(m_sample->isChecked());
    m_backtrace->setEnabled(m_sample->isChecked());
    const bool nvtxRange = m_range->currentIndex() == 1;
    m_nvtxRange->setEnabled(nvtxRange);
    m_nvtxDomain->setEnabled(nvtxRange);
    m_rangeEnd->setEnabled(m_range->currentIndex() != 0);
    m_repeatCount->setEnabled(m_range->currentIndex() != 0 && m_rangeEnd->currentIndex() == 2);
}

void CaptureForm::setCapabilities(const CaptureCapabilities& c) {
    m_caps = c;
    m_capsKnown = true;
    // Unavailable options are also unticked, so the command line never asks for them.
    if (!c.cuda) {
        m_cuda->setChecked(false);
        m_cudaMemory->setChecked(false);
        if (m_range->currentIndex() == 2) m_range->setCurrentIndex(0);
    }
    if (!c.gpuMetrics) m_gpuMetrics->setChecked(false);
    updateEnabled();
    emit changed();
}

CaptureSettings CaptureForm::settings(QString* argumentsError) const {
    CaptureSettings s;
    s.program = m_program->text().trimmed();
    auto args = ProfileCommandBuilder::shellSplit(m_arguments->text());
    if (args)
        s.arguments = *args;
    else if (argumentsError)
        *argumentsError = QString::fromStdString(args.error());
    s.workingDirectory = m_workingDir->text().trimmed();
    for (int r = 0; r < m_env->rowCount(); ++r) {
        const QString name = m_env->item(r, 0) ? m_env->item(r, 0)->text().trimmed() : QString();
        if (!name.isEmpty())
            s.environment.append({name, m_env->item(r, 1) ? m_env->item(r, 1)->text() : QString()});
    }
    s.traceCuda = m_cuda->isEnabled() && m_cuda->isChecked();
    s.traceNvtx = m_nvtx->isChecked();
    s.traceOsrt = m_osrt->isChecked();
    s.osrtThresholdNs = m_osrtThreshold->value();
    s.cudaMemoryUsage = m_cudaMemory->isEnabled() && m_cudaMemory->isChecked();
    const QString devices = m_gpuDevices->text().trimmed();
    s.gpuMetricsDevices = m_gpuMetrics->isEnabled() && m_gpuMetrics->isChecked()
                              ? (devices.isEmpty() ? "all" : devices)
                              : "none";
    s.gpuMetricsFrequencyHz = m_gpuFrequency->value();
    s.cpuMetrics = m_cpuMetrics->isChecked();
    s.sampleCpu = m_sample->isChecked();
    s.samplingFrequencyHz = m_samplingFrequency->value();
    s.backtrace = m_backtrace->currentData().toString();
    s.delaySeconds = m_delay->value();
    s.durationSeconds = m_duration->value();
    s.captureRange = static_cast<CaptureRangeKind>(m_range->currentIndex());
    s.nvtxRange = m_nvtxRange->text();
    s.nvtxDomain = m_nvtxDomain->text();
    s.rangeEnd = static_cast<CaptureRangeEndKind>(m_rangeEnd->currentIndex());
    s.repeatCount = m_repeatCount->value();
    s.output = m_output->text().trimmed();
    s.forceOverwrite = m_overwrite->isChecked();
    return s;
}

void CaptureForm::setSettings(const CaptureSettings& s) {
    {
        const QSignalBlocker block(this);  // one changed() at the end, not one per widget
        m_program->setText(s.program);
        m_arguments->setText(ProfileCommandBuilder::shellJoin(s.arguments));
        m_workingDir->setText(s.workingDirectory);
        m_env->setRowCount(0);
        for (const auto& [name, value] : s.environment) {
            const int r = m_env->rowCount();
            m_env->insertRow(r);
            m_env->setItem(r, 0, new QTableWidgetItem(name));
            m_env->setItem(r, 1, new QTableWidgetItem(value));
        }
        m_cuda->setChecked(s.traceCuda);
        m_nvtx->setChecked(s.traceNvtx);
        m_osrt->setChecked(s.traceOsrt);
        m_osrtThreshold->setValue(int(s.osrtThresholdNs));
        m_cudaMemory->setChecked(s.cudaMemoryUsage);
        m_gpuMetrics->setChecked(s.gpuMetricsDevices != "none" && !s.gpuMetricsDevices.isEmpty());
        m_gpuDevices->setText(m_gpuMetrics->isChecked() ? s.gpuMetricsDevices : QString("all"));
        m_gpuFrequency->setValue(s.gpuMetricsFrequencyHz);
        m_cpuMetrics->setChecked(s.cpuMetrics);
        m_sample->setChecked(s.sampleCpu);
        m_samplingFrequency->setValue(s.samplingFrequencyHz);
        m_backtrace->setCurrentIndex(std::max(0, m_backtrace->findData(s.backtrace)));
        m_delay->setValue(s.delaySeconds);
        m_duration->setValue(s.durationSeconds);
        m_range->setCurrentIndex(int(s.captureRange));
        m_nvtxRange->setText(s.nvtxRange);
        m_nvtxDomain->setText(s.nvtxDomain);
        m_rangeEnd->setCurrentIndex(int(s.rangeEnd));
        m_repeatCount->setValue(s.repeatCount);
        m_output->setText(s.output);
        m_overwrite->setChecked(s.forceOverwrite);
        if (m_capsKnown) setCapabilities(m_caps);  // re-clear what this machine cannot do
        updateEnabled();
    }
    emit changed();
}

void CaptureForm::browseProgram() {
    const QString p =
        QFileDialog::getOpenFileName(this, "Program to profile", m_workingDir->text());
    if (!p.isEmpty()) m_program->setText(p);
}

void CaptureForm::browseDirectory() {
    const QString d =
        QFileDialog::getExistingDirectory(this, "Working directory", m_workingDir->text());
    if (!d.isEmpty()) m_workingDir->setText(d);
}

void CaptureForm::browseOutput() {
    const QString p = QFileDialog::getSaveFileName(this, "Report file", m_output->text(),
                                                   "Sightline reports (*.rep)", nullptr,
                                                   QFileDialog::DontConfirmOverwrite);
    if (!p.isEmpty()) m_output->setText(p);
}

}  // namespace sl::viewer
