// A capture's raw stream file (what a traced process leaves in the session directory, possibly
// cut short or damaged) read and merged into a report, as the launcher and `sightline import
// SESSION-DIR` do; the report is then finished (tracks sorted, lanes packed).
#include "FuzzSupport.h"
#include "capture/launcher/SessionMerger.h"
#include "model/core/ReportBuilder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = sl::fuzz::inputFile(data, size, "-inject-42-0.slraw");
    sl::fuzz::MemoryCap cap(size);
    sl::ReportBuilder b;
    sl::capture::SessionMerger m(b);
    (void)m.addStream(path);
    m.processExited(42, 1'000'000'000, 0, 0);
    m.finish(2'000'000'000);
    auto r = b.finish();
    return 0;
}
