#include "viewer/capture/CaptureForm.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "model/options/OptionDef.h"
#include "viewer/capture/OptionText.h"
#include "viewer/capture/OptionField.h"
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

// The sections of the form, in order: the definition's group names and the titles shown.
struct Section {
    const char* group;
    const char* title;
};
constexpr Section kSections[] = {{"Trace", "Trace"},       {"CUDA", "CUDA and GPU"},
                                 {"CPU", "CPU"},           {"Timing", "When"},
                                 {"Output", "Report"}};
constexpr const char* kMoreGroup = "More";

}  // namespace

CaptureForm::CaptureForm(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildProgramGroup());
    for (const Section& s : kSections) layout->addWidget(buildOptionGroup(s.group, s.title));
    layout->addWidget(buildMoreSection());
    layout->addStretch(1);
    setSettings(CaptureSettings());
}

OptionField* CaptureForm::field(const QString& option) const {
    for (OptionField* f : m_fields)
        if (f->name() == option) return f;
    return nullptr;
}

void CaptureForm::addFields(const QString& group, QFormLayout* form) {
    for (const options::OptionDef* o : options::optionsOf("profile")) {
        if (optionText(o->group) != group || o->name == "env-var") continue;
        auto* f = new OptionField(*o);
        m_fields << f;
        if (f->label())
            form->addRow(f->label(), f);
        else
            form->addRow(f);
        connect(f, &OptionField::changed, this, &CaptureForm::onFieldChanged);
    }
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

    // --env-var as a table of names and values (the option's field).
    m_env = named(new QTableWidget(0, 2), "env-var");
    m_env->setProperty("option", "env-var");
    m_env->setToolTip("--env-var, -e: " + optionText(options::findOption("profile", "env-var")->help));
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
    for (QLineEdit* e : {m_program, m_arguments, m_workingDir})
        connect(e, &QLineEdit::textChanged, this, &CaptureForm::changed);
    addFields("Program", form);
    return box;
}

QWidget* CaptureForm::buildOptionGroup(const QString& group, const QString& title) {
    auto* box = new QGroupBox(title);
    box->setObjectName("group-" + group);
    auto* form = new QFormLayout(box);
    if (group == "CUDA") {  // why CUDA capture or GPU metrics are off on this machine
        m_cudaReason = reasonLabel("cudaReason");
        m_gpuReason = reasonLabel("gpuMetricsReason");
        form->addRow(m_cudaReason);
        form->addRow(m_gpuReason);
    }
    addFields(group, form);
    return box;
}

QWidget* CaptureForm::buildMoreSection() {
    // Every other option nsys has: most are not available here, each says why. Folded by default
    // so that the common settings stay on one screen.
    auto* section = new QWidget;
    auto* layout = new QVBoxLayout(section);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* toggle = named(new QToolButton, "moreOptions");
    toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toggle->setArrowType(Qt::RightArrow);
    toggle->setCheckable(true);
    toggle->setAutoRaise(true);
    auto* box = named(new QGroupBox, "group-More");
    auto* form = new QFormLayout(box);
    addFields(kMoreGroup, form);
    int available = 0, total = 0;
    for (OptionField* f : m_fields)
        if (f->def().group == kMoreGroup)
            ++total, available += f->def().support != options::Support::Unavailable;
    toggle->setText(QString("More options (%1 of nsys's other %2 work here)")
                        .arg(available)
                        .arg(total));
    box->hide();
    connect(toggle, &QToolButton::toggled, this, [toggle, box](bool open) {
        toggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        box->setVisible(open);
    });
    layout->addWidget(toggle);
    layout->addWidget(box);
    return section;
}

void CaptureForm::onFieldChanged() {
    updateApplies();
    emit changed();
}

void CaptureForm::updateApplies() {
    const CaptureSettings s = settings();
    for (OptionField* f : m_fields) f->setApplies(s.applies(f->name()));
}

void CaptureForm::setCapabilities(const CaptureCapabilities& c) {
    m_caps = c;
    m_capsKnown = true;
    applyCapabilities();
    updateApplies();
    emit changed();
}

void CaptureForm::applyCapabilities() {
    if (!m_capsKnown) return;
    for (OptionField* f : m_fields) {
        const options::OptionDef& d = f->def();
        QString reason;
        if (d.needsCuda && !m_caps.cuda)
            reason = m_caps.cudaReason;
        else if (d.needsNvml && !m_caps.gpuMetrics)
            reason = m_caps.gpuMetricsReason;
        f->setUnavailable(reason);
        // Unavailable options go back to their defaults, so the command line never asks for them.
        if (!reason.isEmpty()) f->setValue(optionText(d.defaultValue));
        for (const options::ValueDef& v : d.values) {
            if (!v.needsCuda) continue;
            f->setValueUnavailable(optionText(v.name), m_caps.cuda ? QString() : m_caps.cudaReason);
            if (!m_caps.cuda && f->value() == optionText(v.name)) f->setValue(optionText(d.defaultValue));
        }
    }
    m_cudaReason->setText(m_caps.cudaReason);
    m_cudaReason->setVisible(!m_caps.cuda);
    m_gpuReason->setText(m_caps.gpuMetricsReason);
    m_gpuReason->setVisible(m_caps.cuda && !m_caps.gpuMetrics);
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
    for (OptionField* f : m_fields)
        if (f->isAvailable()) s.set(f->name(), f->value());
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
        for (OptionField* f : m_fields) f->setValue(s.value(f->name()));
        applyCapabilities();  // re-clear what this machine cannot do
        updateApplies();
    }
    emit changed();
}

void CaptureForm::browseProgram() {
    if (m_browse) return m_browse(true);
    const QString p =
        QFileDialog::getOpenFileName(this, "Program to profile", m_workingDir->text());
    if (!p.isEmpty()) m_program->setText(p);
}

void CaptureForm::browseDirectory() {
    if (m_browse) return m_browse(false);
    const QString d =
        QFileDialog::getExistingDirectory(this, "Working directory", m_workingDir->text());
    if (!d.isEmpty()) m_workingDir->setText(d);
}

}  // namespace sl::viewer
