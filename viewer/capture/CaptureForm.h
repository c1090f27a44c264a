#pragma once
// The Capture tab's form: program, arguments, working directory, environment table, what to
// trace, timing, capture range and output. Maps widgets to CaptureSettings and back; options the
// machine cannot capture are disabled with the reason next to them. Emits changed() on every
// edit so the tab can refresh the command line. GUI thread. Widgets carry objectNames for tests.
#include <QWidget>

#include "viewer/capture/CaptureCapabilities.h"
#include "viewer/capture/CaptureSettings.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace sl::viewer {

class CaptureForm : public QWidget {
    Q_OBJECT
public:
    explicit CaptureForm(QWidget* parent = nullptr);

    // The settings as the form shows them; `argumentsError` gets a quoting problem, if any.
    CaptureSettings settings(QString* argumentsError = nullptr) const;
    void setSettings(const CaptureSettings& s);
    void setCapabilities(const CaptureCapabilities& c);
    const CaptureCapabilities& capabilities() const { return m_caps; }

signals:
    void changed();

private:
    QWidget* buildProgramGroup();
    QWidget* buildTraceGroup();
    QWidget* buildTimingGroup();
    QWidget* buildOutputGroup();
    void updateEnabled();
    void browseProgram();
    void browseDirectory();
    void browseOutput();
    void watch(QWidget* w);

    CaptureCapabilities m_caps;
    bool m_capsKnown = false;
    QLineEdit *m_program, *m_arguments, *m_workingDir, *m_output, *m_nvtxRange, *m_nvtxDomain,
        *m_gpuDevices;
    QTableWidget* m_env;
    QCheckBox *m_cuda, *m_nvtx, *m_osrt, *m_cudaMemory, *m_gpuMetrics, *m_cpuMetrics, *m_sample,
        *m_overwrite;
    QSpinBox *m_osrtThreshold, *m_gpuFrequency, *m_samplingFrequency, *m_repeatCount;
    QDoubleSpinBox *m_delay, *m_duration;
    QComboBox *m_range, *m_rangeEnd, *m_backtrace;
    QLabel *m_cudaReason, *m_gpuReason;
};

}  // namespace sl::viewer
