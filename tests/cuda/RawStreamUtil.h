#pragma once
// Reads back what an injection module wrote through capture/common: every raw stream of a
// session directory whose module is `module`, as decoded events, metadata and strings.
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "capture/common/RawReader.h"

namespace sl::cuda::test {

struct RawEvent {
    capture::EventRecord rec;
    std::vector<int64_t> cols;
    std::string name;
};

struct RawMeta {
    capture::MetaKind kind;
    std::vector<int64_t> ints;
    std::vector<std::string> strs;
};

struct RawContent {
    int files = 0;
    int64_t pid = 0;
    std::vector<RawEvent> events;
    std::vector<RawMeta> metas;
    std::string error;
};

inline RawContent readModuleStreams(const std::string& dir, const std::string& module) {
    RawContent out;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        std::string n = entry.path().filename().string();
        if (!n.starts_with(module + "-") || !n.ends_with(".slraw")) continue;
        auto s = capture::RawStream::open(entry.path().string());
        if (!s) {
            out.error = s.error();
            return out;
        }
        ++out.files;
        out.pid = s->header().pid;
        std::map<uint32_t, std::string> strings;
        for (const auto& b : s->blocks()) {
            capture::forEachRecord(b, [&](const capture::RecordHeader& h, const uint8_t* rec) {
                if (h.type == capture::RecordType::String) {
                    strings[h.aux] = std::string(capture::stringText(rec));
                } else if (h.type == capture::RecordType::Event) {
                    RawEvent e;
                    std::memcpy(&e.rec, rec, sizeof e.rec);
                    const auto* c =
                        reinterpret_cast<const int64_t*>(rec + sizeof(capture::EventRecord));
                    e.cols.assign(c, c + e.rec.columnCount);
                    e.name = strings.count(e.rec.name) ? strings[e.rec.name] : "";
                    out.events.push_back(e);
                } else if (h.type == capture::RecordType::Meta) {
                    capture::MetaView v;
                    if (!capture::decodeMeta(rec, &v)) return;
                    RawMeta m{v.kind, {}, {}};
                    for (int i = 0; i < v.intCount; ++i) m.ints.push_back(v.ints[i]);
                    for (int i = 0; i < v.strCount; ++i) m.strs.emplace_back(v.strs[i]);
                    out.metas.push_back(m);
                }
            });
        }
    }
    return out;
}

}  // namespace sl::cuda::test
