#include "viewer/capture/ProfileCommandBuilder.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

namespace sl::viewer {

namespace {

QString seconds(double v) {
    return QString::number(v, 'g', 12);
}

QString traceList(const CaptureSettings& s) {
    QStringList t;
    if (s.traceCuda) t << "cuda";
    if (s.traceNvtx) t << "nvtx";
    if (s.traceOsrt) t << "osrt";
    return t.isEmpty() ? QStringLiteral("none") : t.join(',');
}

QString rangeEndText(const CaptureSettings& s) {
    switch (s.rangeEnd) {
        case CaptureRangeEndKind::Stop:
            return "stop";
        case CaptureRangeEndKind::StopShutdown:
            return "stop-shutdown";
        case CaptureRangeEndKind::Repeat:
            return s.repeatCount > 0 ? "repeat:" + QString::number(s.repeatCount) : "repeat";
    }
    return "stop";
}

// Long option name for each short one the CLI has.
QString longName(QChar c) {
    switch (c.unicode()) {
        case 'o':
            return "output";
        case 'f':
            return "force-overwrite";
        case 't':
            return "trace";
        case 'y':
            return "delay";
        case 'd':
            return "duration";
        case 'c':
            return "capture-range";
        case 'p':
            return "nvtx-capture";
        case 'e':
            return "env-var";
        case 's':
            return "sample";
        case 'b':
            return "backtrace";
        default:
            return {};
    }
}

bool isFlag(const QString& name) {
    return name == "force-overwrite" || name == "cpu-metrics" || name == "cuda-memory-usage";
}

Result<bool> boolValue(const QString& name, const QString& v) {
    if (v == "true" || v == "on" || v == "1") return true;
    if (v == "false" || v == "off" || v == "0") return false;
    return makeError(("--" + name + " takes true or false, not '" + v + "'").toStdString());
}

Result<double> secondsValue(const QString& name, const QString& v) {
    bool ok = false;
    double d = v.toDouble(&ok);
    if (!ok || d < 0)
        return makeError(
            ("--" + name + ": expected a number of seconds, got '" + v + "'").toStdString());
    return d;
}

Result<qint64> intValue(const QString& name, const QString& v) {
    bool ok = false;
    qint64 n = v.toLongLong(&ok);
    if (!ok || n < 0)
        return makeError(
            ("--" + name + ": expected a whole number, got '" + v + "'").toStdString());
    return n;
}

// Applies one option to `s`; an error names the option and the value.
Status applyOption(const QString& name, const QString& v, CaptureSettings& s) {
    auto fail = [&](const QString& what) {
        return Status(makeError(("--" + name + ": " + what).toStdString()));
    };
    if (name == "output")
        s.output = v;
    else if (name == "force-overwrite" || name == "cpu-metrics" || name == "cuda-memory-usage") {
        auto b = boolValue(name, v);
        if (!b) return Status(makeError(b.error()));
        (name == "force-overwrite" ? s.forceOverwrite
         : name == "cpu-metrics"   ? s.cpuMetrics
                                   : s.cudaMemoryUsage) = *b;
    } else if (name == "trace") {
        s.traceCuda = s.traceNvtx = s.traceOsrt = false;
        for (const QString& item : v.split(',')) {
            if (item == "cuda")
                s.traceCuda = true;
            else if (item == "nvtx")
                s.traceNvtx = true;
            else if (item == "osrt")
                s.traceOsrt = true;
            else if (item != "none")
                return fail("unknown value '" + item + "' (expected cuda, nvtx, osrt or none)");
        }
    } else if (name == "osrt-threshold" || name == "sampling-frequency" ||
               name == "gpu-metrics-frequency") {
        auto n = intValue(name, v);
        if (!n) return Status(makeError(n.error()));
        if (name == "osrt-threshold")
            s.osrtThresholdNs = *n;
        else if (name == "sampling-frequency") {
            if (*n < 100 || *n > 8000) return fail("expected 100 to 8000 Hz, got '" + v + "'");
            s.samplingFrequencyHz = int(*n);
        }
        else
            s.gpuMetricsFrequencyHz = int(*n);
    } else if (name == "delay" || name == "duration") {
        auto d = secondsValue(name, v);
        if (!d) return Status(makeError(d.error()));
        (name == "delay" ? s.delaySeconds : s.durationSeconds) = *d;
    } else if (name == "capture-range") {
        if (v == "none")
            s.captureRange = CaptureRangeKind::None;
        else if (v == "nvtx")
            s.captureRange = CaptureRangeKind::Nvtx;
        else if (v == "cudaProfilerApi")
            s.captureRange = CaptureRangeKind::CudaProfilerApi;
        else
            return fail("expected none, nvtx or cudaProfilerApi, got '" + v + "'");
    } else if (name == "nvtx-capture") {
        const qsizetype at = v.lastIndexOf('@');
        s.nvtxRange = at < 0 ? v : v.left(at);
        s.nvtxDomain = at < 0 ? QString() : v.mid(at + 1);
    } else if (name == "capture-range-end") {
        static const QRegularExpression repeatN("^repeat:([1-9][0-9]*)$");
        if (v == "stop")
            s.rangeEnd = CaptureRangeEndKind::Stop;
        else if (v == "stop-shutdown")
            s.rangeEnd = CaptureRangeEndKind::StopShutdown;
        else if (v == "repeat")
            s.rangeEnd = CaptureRangeEndKind::Repeat, s.repeatCount = 0;
        else if (auto m = repeatN.match(v); m.hasMatch())
            s.rangeEnd = CaptureRangeEndKind::Repeat, s.repeatCount = m.captured(1).toInt();
        else
            return fail("expected stop, stop-shutdown, repeat or repeat:N, got '" + v + "'");
    } else if (name == "env-var") {
        for (const QString& item : v.split(',')) {
            const qsizetype eq = item.indexOf('=');
            if (eq <= 0) return fail("expected NAME=VALUE, got '" + item + "'");
            s.environment.append({item.left(eq), item.mid(eq + 1)});
        }
    } else if (name == "sample") {
        // The values the CLI accepts (capture/launcher/ProfileOptions.cpp).
        if (v != "process-tree" && v != "none")
            return fail("expected process-tree or none, got '" + v + "'");
        s.sampleCpu = v == "process-tree";
    } else if (name == "backtrace") {
        if (v != "fp" && v != "auto" && v != "none")
            return fail("expected fp or none, got '" + v + "'");
        s.backtrace = v == "auto" ? QStringLiteral("fp") : v;  // auto picks frame pointers
    } else if (name == "gpu-metrics-devices")
        s.gpuMetricsDevices = v;
    else
        return Status(makeError(("unknown option --" + name).toStdString()));
    return {};
}

// Resolves the program the way the launcher's execvp will: with a '/', relative to the working
// directory; without, through PATH.
QString resolveProgram(const CaptureSettings& s) {
    if (s.program.contains('/'))
        return QDir(s.workingDirectory.isEmpty() ? QDir::currentPath() : s.workingDirectory)
            .absoluteFilePath(s.program);
    return QStandardPaths::findExecutable(s.program);
}

}  // namespace

QStringList ProfileCommandBuilder::arguments(const CaptureSettings& s) {
    const CaptureSettings d;  // the CLI's defaults
    QStringList a{"profile", "--trace=" + traceList(s)};
    if (s.traceOsrt && s.osrtThresholdNs != d.osrtThresholdNs)
        a << "--osrt-threshold=" + QString::number(s.osrtThresholdNs);
    if (s.cudaMemoryUsage) a << "--cuda-memory-usage=true";
    if (s.gpuMetricsDevices != d.gpuMetricsDevices && !s.gpuMetricsDevices.isEmpty()) {
        a << "--gpu-metrics-devices=" + s.gpuMetricsDevices;
        if (s.gpuMetricsFrequencyHz != d.gpuMetricsFrequencyHz)
            a << "--gpu-metrics-frequency=" + QString::number(s.gpuMetricsFrequencyHz);
    }
    if (!s.cpuMetrics) a << "--cpu-metrics=off";
    if (!s.sampleCpu) {
        a << "--sample=none";  // frequency and backtrace only matter when sampling
    } else {
        if (s.samplingFrequencyHz != d.samplingFrequencyHz)
            a << "--sampling-frequency=" + QString::number(s.samplingFrequencyHz);
        if (s.backtrace != d.backtrace) a << "--backtrace=" + s.backtrace;
    }
    if (s.delaySeconds > 0) a << "--delay=" + seconds(s.delaySeconds);
    if (s.durationSeconds > 0) a << "--duration=" + seconds(s.durationSeconds);
    if (s.captureRange == CaptureRangeKind::Nvtx) {
        a << "--capture-range=nvtx";
        a << "--nvtx-capture=" + s.nvtxRange +
                 (s.nvtxDomain.isEmpty() ? QString() : "@" + s.nvtxDomain);
    } else if (s.captureRange == CaptureRangeKind::CudaProfilerApi)
        a << "--capture-range=cudaProfilerApi";
    if (s.captureRange != CaptureRangeKind::None && s.rangeEnd != CaptureRangeEndKind::Stop)
        a << "--capture-range-end=" + rangeEndText(s);
    for (const auto& [name, value] : s.environment) a << "--env-var=" + name + "=" + value;
    if (!s.output.isEmpty()) a << "--output=" + s.output;
    if (s.forceOverwrite) a << "--force-overwrite=true";
    // The CLI stops reading options at the first positional; "--" keeps a program named "-x" a
    // program.
    if (s.program.startsWith('-')) a << "--";
    a << s.program << s.arguments;
    return a;
}

QString ProfileCommandBuilder::displayCommand(const QString& binary, const CaptureSettings& s) {
    QString cmd = shellJoin(QStringList{binary} + arguments(s));
    if (!s.workingDirectory.isEmpty()) cmd = "cd " + shellQuote(s.workingDirectory) + " && " + cmd;
    return cmd;
}

Result<CaptureSettings> ProfileCommandBuilder::parse(const QStringList& args) {
    CaptureSettings s;
    qsizetype i = 0;
    if (i < args.size() && args[i] == "profile") ++i;
    for (; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (!a.startsWith('-') || a == "-") break;
        QString name, value;
        bool hasValue = false;
        if (a.startsWith("--")) {
            const qsizetype eq = a.indexOf('=');
            name = eq < 0 ? a.mid(2) : a.mid(2, eq - 2);
            if (eq >= 0) value = a.mid(eq + 1), hasValue = true;
        } else {
            name = longName(a.at(1));
            if (name.isEmpty()) return makeError(("unknown option " + a).toStdString());
            if (a.size() > 2) value = a.mid(2), hasValue = true;
        }
        if (!hasValue) {
            if (isFlag(name))
                value = "true";
            else if (i + 1 < args.size())
                value = args[++i];
            else
                return makeError(("--" + name + " needs a value").toStdString());
        }
        if (Status st = applyOption(name, value, s); !st) return makeError(st.error());
    }
    if (i >= args.size()) return makeError("no program to profile in the command line");
    s.program = args[i];
    s.arguments = args.mid(i + 1);
    return s;
}

QStringList ProfileCommandBuilder::validate(const CaptureSettings& s) {
    QStringList problems;
    if (!s.workingDirectory.isEmpty() && !QFileInfo(s.workingDirectory).isDir())
        problems << "The working directory '" + s.workingDirectory +
                        "' does not exist: pick an existing folder or leave it empty.";
    if (s.program.trimmed().isEmpty()) {
        problems << "No program: choose the program to profile with the '...' button.";
    } else {
        const QString path = resolveProgram(s);
        const QFileInfo fi(path);
        if (path.isEmpty() || !fi.exists())
            problems << "Program not found: '" + s.program + "'" +
                            (s.program.contains('/') ? QString() : " is not in PATH") +
                            ". Check the path, or choose the program with the '...' button.";
        else if (!fi.isFile() || !fi.isExecutable())
            problems << "'" + path +
                            "' is not an executable file: make it executable (chmod +x) or pick "
                            "another program.";
    }
    static const QRegularExpression envName("^[A-Za-z_][A-Za-z0-9_]*$");
    for (const auto& [name, value] : s.environment) {
        if (!envName.match(name).hasMatch())
            problems << "Environment variable name '" + name +
                            "' is not valid: use letters, digits and '_'.";
        if (value.contains(','))
            problems << "The value of " + name +
                            " contains a comma, which --env-var cannot pass: set it in the "
                            "environment of sightline instead.";
    }
    if (s.captureRange == CaptureRangeKind::Nvtx && s.nvtxRange.trimmed().isEmpty())
        problems << "The NVTX capture range needs the name of the range that starts the capture.";
    if (s.captureRange == CaptureRangeKind::Nvtx && !s.traceNvtx)
        problems << "The NVTX capture range needs NVTX tracing: tick 'NVTX ranges and marks'.";
    if (!s.output.isEmpty()) {
        const QString dir = QFileInfo(s.output).path();
        if (!dir.contains('%')) {
            const QString full =
                QDir(s.workingDirectory.isEmpty() ? QDir::currentPath() : s.workingDirectory)
                    .absoluteFilePath(dir);
            const QFileInfo di(full);
            if (!di.isDir())
                problems << "The output folder '" + full +
                                "' does not exist: create it or choose another output path.";
            else if (!di.isWritable())
                problems << "The output folder '" + full +
                                "' is not writable: choose another output path.";
        }
    }
    return problems;
}

QString ProfileCommandBuilder::shellQuote(const QString& word) {
    static const QRegularExpression safe("^[A-Za-z0-9_@%+=:,./-]+$");
    if (safe.match(word).hasMatch()) return word;
    QString q = word;
    q.replace('\'', "'\\''");
    return "'" + q + "'";
}

QString ProfileCommandBuilder::shellJoin(const QStringList& words) {
    QStringList q;
    for (const QString& w : words) q << shellQuote(w);
    return q.join(' ');
}

Result<QStringList> ProfileCommandBuilder::shellSplit(const QString& line) {
    QStringList words;
    QString cur;
    bool inWord = false;
    enum { Plain, Single, Double } mode = Plain;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (mode == Single) {
            if (c == '\'')
                mode = Plain;
            else
                cur += c;
        } else if (mode == Double) {
            if (c == '"')
                mode = Plain;
            else if (c == '\\' && i + 1 < line.size() && QString("\"\\$`").contains(line[i + 1]))
                cur += line[++i];
            else
                cur += c;
        } else if (c.isSpace()) {
            if (inWord) words << cur, cur.clear(), inWord = false;
        } else {
            inWord = true;
            if (c == '\'')
                mode = Single;
            else if (c == '"')
                mode = Double;
            else if (c == '\\' && i + 1 < line.size())
                cur += line[++i];
            else
                cur += c;
        }
    }
    if (mode != Plain)
        return makeError(std::string("unclosed ") + (mode == Single ? "'" : "\"") +
                         " in the arguments");
    if (inWord) words << cur;
    return words;
}

}  // namespace sl::viewer
