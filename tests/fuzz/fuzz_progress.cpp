// The Capture tab's readers of what `sightline profile` and the traced program write: the bytes
// arrive in reads of any size (the first input byte seeds how they are cut), go through the
// line cutters the GUI uses (LineCutter: Drop for the progress channel, Split for the program's
// output), and the progress lines into CaptureProgress. Checks what the GUI relies on: no line
// over its limit, no byte of the program's output lost, values in their ranges.
#include <QByteArray>
#include <QString>
#include <cstdint>
#include <cstdlib>

#include "FuzzSupport.h"
#include "viewer/capture/CaptureProgress.h"
#include "viewer/capture/LineCutter.h"

namespace {

void check(bool ok) {
    if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    sl::fuzz::MemoryCap cap(size);
    if (size < 2) return 0;
    uint32_t seed = data[0] | 1u;
    // Small limits so that inputs reach them; the GUI's are 1 MiB and 64 KiB.
    const qsizetype maxLine = 1 + data[1] * 2;
    const QByteArrayView input(reinterpret_cast<const char*>(data) + 2, qsizetype(size - 2));

    using sl::viewer::LineCutter;
    LineCutter progressLines(maxLine, LineCutter::OverLong::Drop);
    LineCutter outputLines(maxLine, LineCutter::OverLong::Split);
    sl::viewer::CaptureProgress progress;
    QByteArray output;  // the program's output as the GUI got it, newlines left out
    qsizetype at = 0;
    while (at < input.size()) {
        seed = seed * 1103515245u + 12345u;
        const qsizetype n = std::min<qsizetype>(1 + (seed >> 16) % 64, input.size() - at);
        const QByteArrayView read = input.sliced(at, n);
        at += n;
        for (const QByteArray& line : progressLines.append(read)) {
            check(line.size() <= maxLine && !line.contains('\n'));
            progress.feedLine(QString::fromUtf8(line));
        }
        for (const QByteArray& line : outputLines.append(read)) {
            check(line.size() <= maxLine && !line.contains('\n'));
            output += line;
        }
    }
    const QByteArray rest = progressLines.takeRest();
    check(rest.size() <= maxLine);
    progress.feedLine(QString::fromUtf8(rest));
    output += outputLines.takeRest();
    check(output == QByteArray(input.data(), input.size()).replace('\n', QByteArray()));

    check(progress.events() >= -1 && progress.processes() >= -1 && progress.rootPid() >= -1);
    check(progress.rootPid() != 0);
    check(progress.exitCode() >= -1 && progress.exitCode() <= 255);
    for (const QString& path : progress.reportPaths()) check(!path.isEmpty());
    return 0;
}
