#include "viewer/capture/ProfileCommandBuilder.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

#include "model/options/OptionDef.h"
#include "viewer/capture/OptionText.h"
#include "model/options/OptionParser.h"

namespace sl::viewer {

namespace {

// The options the tab sets through its own fields rather than `CaptureSettings::options`.
bool isSpecial(std::string_view name) {
    return name == "trace" || name == "env-var";
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
    // --trace is always given: the tab's choice, not whatever a CLI's default may become.
    QStringList a{"profile", "--trace=" + s.value("trace")};
    // In the definition's order, so that equal settings give the same command line.
    for (const options::OptionDef* o : options::optionsOf("profile")) {
        const QString name = optionText(o->name);
        if (isSpecial(o->name) || !s.options.contains(name)) continue;
        if (!s.applies(name)) continue;  // greyed out in the form: it would change nothing
        a << "--" + name + "=" + s.options.value(name);
    }
    for (const auto& [name, value] : s.environment) a << "--env-var=" + name + "=" + value;
    a << remoteArguments(s);
    // The CLI stops reading options at the first positional; "--" keeps a program named "-x" a
    // program.
    if (s.program.startsWith('-')) a << "--";
    a << s.program << s.arguments;
    return a;
}

QString ProfileCommandBuilder::displayCommand(const QString& binary, const CaptureSettings& s) {
    const QStringList words = QStringList{binary} + arguments(s);
    QString cmd = shellJoin(words);
    if (s.program.isEmpty()) {  // a placeholder reads better than an empty quoted word
        const qsizetype at = words.size() - s.arguments.size() - 1;
        const QStringList after = words.mid(at + 1);
        cmd = shellJoin(words.mid(0, at)) + " PROGRAM" +
              (after.isEmpty() ? QString() : " " + shellJoin(after));
    }
    // Remote: the directory is --remote-workdir, a path there.
    if (!s.workingDirectory.isEmpty() && !s.remote.isRemote())
        cmd = "cd " + shellQuote(s.workingDirectory) + " && " + cmd;
    return cmd;
}

Result<CaptureSettings> ProfileCommandBuilder::parse(const QStringList& args) {
    std::vector<std::string> words;
    for (qsizetype i = args.startsWith("profile") ? 1 : 0; i < args.size(); ++i)
        words.push_back(args[i].toStdString());
    // With CUDA: a preset saved on a machine that captures CUDA reads back the same here; the
    // form greys out what this machine cannot do.
    auto parsed = options::parseArgs("profile", words, options::BuildFeatures{.cuda = true});
    if (!parsed) return makeError(parsed.error());
    if (parsed->positionals.empty()) return makeError("no program to profile in the command line");
    CaptureSettings s;
    for (const options::OptionDef* o : options::optionsOf("profile")) {
        if (o->group.empty() || !parsed->given(o->name)) continue;
        if (o->name == "env-var") {
            for (const std::string& v : parsed->values(o->name))
                for (const QString& item : optionText(v).split(',', Qt::SkipEmptyParts)) {
                    const qsizetype eq = item.indexOf('=');
                    if (eq <= 0)
                        return makeError(("--env-var: expected NAME=VALUE, got '" + item + "'")
                                             .toStdString());
                    s.environment.append({item.left(eq), item.mid(eq + 1)});
                }
        } else {
            s.set(optionText(o->name), QString::fromStdString(parsed->value(o->name)));
        }
    }
    // The target (presets keep it: a preset for the GPU server captures there).
    auto text = [&](const char* name) { return QString::fromStdString(parsed->value(name)); };
    s.remote = {text("remote"), text("remote-key"), text("remote-jump"), text("remote-sightline")};
    if (s.remote.isRemote()) s.workingDirectory = text("remote-workdir");
    s.program = QString::fromStdString(parsed->positionals.front());
    for (size_t i = 1; i < parsed->positionals.size(); ++i)
        s.arguments << QString::fromStdString(parsed->positionals[i]);
    return s;
}

QStringList ProfileCommandBuilder::validateTarget(const RemoteTarget& t) {
    QStringList problems;
    // user@host[:port] or [v6]:port; the CLI parses it again and says more.
    static const QRegularExpression target(
        R"(^([^@\s]+@)?(\[[0-9A-Fa-f:.]+\]|[^@:\s\[\]]+)(:[0-9]{1,5})?$)");
    if (!target.match(t.host.trimmed()).hasMatch())
        problems << "The remote host '" + t.host +
                        "' is not user@host[:port]: for example alice@gpu01 or alice@gpu01:2222.";
    if (!t.keyFile.isEmpty() && !QFileInfo(t.keyFile).isReadable())
        problems << "The key file '" + t.keyFile +
                        "' cannot be read: choose the private key (e.g. ~/.ssh/id_ed25519), or "
                        "leave it empty to use the SSH agent.";
    return problems;
}

QStringList ProfileCommandBuilder::remoteArguments(const CaptureSettings& s) {
    QStringList a;
    if (!s.remote.isRemote()) return a;
    a << "--remote=" + s.remote.host.trimmed();
    if (!s.remote.keyFile.isEmpty()) a << "--remote-key=" + s.remote.keyFile;
    if (!s.remote.jumpHost.isEmpty()) a << "--remote-jump=" + s.remote.jumpHost;
    if (!s.remote.sightlinePath.isEmpty()) a << "--remote-sightline=" + s.remote.sightlinePath;
    if (!s.workingDirectory.isEmpty()) a << "--remote-workdir=" + s.workingDirectory;
    return a;
}

QStringList ProfileCommandBuilder::validate(const CaptureSettings& s) {
    QStringList problems;
    const bool remote = s.remote.isRemote();
    if (remote) problems << validateTarget(s.remote);
    if (!remote && !s.workingDirectory.isEmpty() && !QFileInfo(s.workingDirectory).isDir())
        problems << "The working directory '" + s.workingDirectory +
                        "' does not exist: pick an existing folder or leave it empty.";
    if (s.program.trimmed().isEmpty()) {
        problems << "No program: choose the program to profile with the '...' button.";
    } else if (!remote) {  // a remote program is checked there, by the CLI
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
    // Each value as the CLI will check it, so a typo in a text field stops here, not in the log.
    for (auto it = s.options.begin(); it != s.options.end(); ++it) {
        const options::OptionDef* o = options::findOption("profile", it.key().toStdString());
        if (!o)
            problems << "'--" + it.key() + "' is not an option of sightline profile.";
        else if (s.applies(it.key()))
            if (auto checked = options::checkValue(*o, it.value().toStdString()); !checked)
                problems << QString::fromStdString(checked.error()) + ".";
    }
    const bool nvtxRange = s.value("capture-range") == "nvtx";
    if (nvtxRange && s.value("nvtx-capture").trimmed().isEmpty())
        problems << "The NVTX capture range needs the name of the range that starts the capture "
                    "(nvtx-capture).";
    if (nvtxRange && !s.has("trace", "nvtx"))
        problems << "The NVTX capture range needs NVTX tracing: tick 'nvtx' under Trace.";
    // With --output-dir the CLI creates the folder itself.
    if (const QString output = s.options.value("output");
        !output.isEmpty() && !s.options.contains("output-dir")) {
        const QString dir = QFileInfo(output).path();
        if (!dir.contains('%')) {
            // A remote capture's report is copied here, next to the GUI's current directory.
            const QString full =
                QDir(s.workingDirectory.isEmpty() || remote ? QDir::currentPath() : s.workingDirectory)
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
