#include "model/import/KinetoSampleRecords.h"

#include "model/import/ImportText.h"
#include "model/import/JsonValues.h"

namespace sl::import {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

}  // namespace

// "stackFrames": {"id": {"name", "category", "parent"}} (ids and parents numbers or strings).
error_code parseStackFrames(od::value v, std::unordered_map<std::string, ChromeStackFrame>& out) {
    od::object frames;
    if (v.get_object().get(frames)) return simdjson::SUCCESS;  // not an object: nothing to read
    for (auto fieldResult : frames) {
        od::field field;
        SL_TRY(std::move(fieldResult).get(field));
        std::string_view id;
        SL_TRY(field.unescaped_key().get(id));
        ChromeStackFrame f;
        od::object o;
        if (field.value().get_object().get(o)) continue;
        for (auto member : o) {
            od::field m;
            SL_TRY(std::move(member).get(m));
            std::string_view key, text;
            SL_TRY(keyOf(m, key));
            od::value mv = m.value();
            if (key == "parent") {
                f.parent = std::string(unquote(trimRaw(mv.raw_json_token())));
            } else if ((key == "name" || key == "category") && !mv.get_string().get(text)) {
                (key == "name" ? f.name : f.category) = std::string(text);
            }
        }
        out[std::string(id)] = std::move(f);
    }
    return simdjson::SUCCESS;
}

// "samples": [{"cpu", "tid", "ts", "sf", "weight", ...}]; `pid` is ours (the format has none).
error_code parseSamples(od::value v, TraceHeader& h) {
    od::array samples;
    if (v.get_array().get(samples)) return simdjson::SUCCESS;
    for (auto item : samples) {
        od::object o;
        if (item.get_object().get(o)) {
            ++h.badSamples;
            continue;
        }
        ChromeSample s;
        std::optional<int64_t> ts;
        bool bad = false, hasTid = false;
        for (auto member : o) {
            od::field m;
            SL_TRY(std::move(member).get(m));
            std::string_view key;
            SL_TRY(keyOf(m, key));
            od::value mv = m.value();
            int64_t n = 0;
            if (key == "ts")
                SL_TRY(parseTime(mv, ts, bad));
            else if (key == "tid")
                hasTid = !mv.get_int64().get(s.tid);
            else if (key == "pid" && !mv.get_int64().get(n))
                s.pid = n;
            else if (key == "cpu" && !mv.get_int64().get(n))
                s.cpu = n;
            else if (key == "sf")
                s.sf = std::string(unquote(trimRaw(mv.raw_json_token())));
        }
        if (!ts || bad || !hasTid) {
            ++h.badSamples;
            continue;
        }
        s.ts = *ts;
        h.samples.push_back(std::move(s));
    }
    return simdjson::SUCCESS;
}

}  // namespace sl::import
