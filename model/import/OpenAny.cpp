#include "model/import/OpenAny.h"

#include "model/import/ImportFile.h"
#include "model/rep/RepReader.h"

namespace sl {

Result<std::shared_ptr<Report>> openAnyReport(const std::string& path,
                                              const std::function<bool(double)>& progress,
                                              const ReadOptions& read) {
    if (detectImportFormat(path) == ImportFormat::Rep) {
        ReadOptions o = read;
        o.progress = progress;
        return readReport(path, o);
    }
    ImportOptions o;
    o.progress = progress;
    return importFile(path, o);
}

}  // namespace sl
