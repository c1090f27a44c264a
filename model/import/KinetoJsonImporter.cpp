#include "model/import/KinetoJsonImporter.h"

#include <simdjson.h>

#include <cctype>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cstring>
#include <deque>
#include <optional>

#include "model/import/GzipReader.h"
#include "model/import/ImportText.h"
#include "model/import/JsonSyntaxCheck.h"
#include "model/import/JsonValues.h"
#include "model/import/KinetoEventMapper.h"
#include "model/import/KinetoSampleRecords.h"
#include "model/import/TraceEventChunks.h"
#include "model/rep/RepWriter.h"

namespace sl::import {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// Strings with escapes, unescaped once; the deque keeps views into them stable.
using EscapedStore = std::deque<std::string>;
thread_local EscapedStore* t_escaped = nullptr;

void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

uint32_t hex4(const char* p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= static_cast<uint32_t>(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= static_cast<uint32_t>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= static_cast<uint32_t>(c - 'A' + 10);
        else
            return 0xFFFD;
    }
    return v;
}

// Reads a string value without the parser's unescape copy: trace strings rarely hold escapes,
// and writing every name into the parser's string buffer costs page faults on big traces.
// (The input was validated as UTF-8 and its strings as closed by the parser's first stage.)
error_code rawString(od::value v, std::string_view& out) {
    od::raw_json_string raw;
    SL_TRY(v.get_raw_json_string().get(raw));
    const char* p = raw.raw();
    const char* q = p;
    while (*q != '"' && *q != '\\') ++q;
    if (*q == '"') {
        out = std::string_view(p, static_cast<size_t>(q - p));
        return simdjson::SUCCESS;
    }
    std::string s(p, static_cast<size_t>(q - p));
    for (; *q != '"'; ++q) {
        if (*q != '\\') {
            s += *q;
            continue;
        }
        ++q;
        switch (*q) {
            case 'n':
                s += '\n';
                break;
            case 't':
                s += '\t';
                break;
            case 'r':
                s += '\r';
                break;
            case 'b':
                s += '\b';
                break;
            case 'f':
                s += '\f';
                break;
            case 'u': {
                uint32_t cp = hex4(q + 1);
                q += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && q[1] == '\\' && q[2] == 'u') {
                    const uint32_t lo = hex4(q + 3);
                    if (lo >= 0xDC00 && lo < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        q += 6;
                    }
                }
                if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;  // a lone surrogate
                appendUtf8(s, cp);
                break;
            }
            default:
                s += *q;
                break;  // \" \\ \/
        }
    }
    t_escaped->push_back(std::move(s));
    out = t_escaped->back();
    return simdjson::SUCCESS;
}

error_code parseId(od::value v, ChromeId& out) {
    od::json_type t;
    SL_TRY(v.type().get(t));
    if (t == od::json_type::string) {
        out.isString = true;
        return rawString(v, out.text);
    }
    if (t == od::json_type::number) {
        const std::string_view raw = v.raw_json_token();
        auto n = decimalToNs(trimRaw(raw), 1);
        if (!n) return simdjson::NUMBER_ERROR;
        out.number = *n;
        return simdjson::SUCCESS;
    }
    return simdjson::SUCCESS;  // null/other: pid 0
}

error_code parseTriple(od::value v, int64_t (&out)[3], bool& has) {
    od::array a;
    SL_TRY(v.get_array().get(a));
    int i = 0;
    for (auto item : a) {
        int64_t n = 0;
        if (item.get_int64().get(n) == simdjson::SUCCESS && i < 3) out[i] = n;
        ++i;
    }
    has = true;
    return simdjson::SUCCESS;
}

error_code parseArgs(od::object args, ChromeEvent& e) {
    for (auto fieldResult : args) {
        od::field field;
        SL_TRY(std::move(fieldResult).get(field));
        std::string_view key;
        SL_TRY(keyOf(field, key));
        od::value v = field.value();
        od::json_type t;
        SL_TRY(v.type().get(t));
        switch (t) {
            case od::json_type::number:
                if (e.numericCount < ChromeEvent::kMaxNumericArgs) {
                    const std::string_view raw = v.raw_json_token();
                    e.numeric[e.numericCount++] = ChromeArg{key, raw};
                }
                break;
            case od::json_type::string:
                if (key == "name")
                    SL_TRY(rawString(v, e.argName));
                else if (key == "labels")
                    SL_TRY(rawString(v, e.argLabels));
                break;
            case od::json_type::array:
                if (key == "grid")
                    SL_TRY(parseTriple(v, e.grid, e.hasGrid));
                else if (key == "block")
                    SL_TRY(parseTriple(v, e.block, e.hasBlock));
                break;
            default:
                break;  // skipped by the iterator
        }
    }
    return simdjson::SUCCESS;
}

error_code parseEvent(od::object obj, ChromeEvent& e) {
    for (auto fieldResult : obj) {
        od::field field;
        SL_TRY(std::move(fieldResult).get(field));
        std::string_view key;
        SL_TRY(keyOf(field, key));
        od::value v = field.value();
        if (key.size() == 2) {
            if (key == "ph")
                SL_TRY(rawString(v, e.ph));
            else if (key == "ts")
                SL_TRY(parseTime(v, e.ts, e.badTime));
            else if (key == "id")
                e.id = v.raw_json_token();
            else if (key == "sf")
                e.sf = unquote(trimRaw(v.raw_json_token()));
        } else if (key == "cat") {
            od::json_type t;
            SL_TRY(v.type().get(t));
            if (t == od::json_type::string) SL_TRY(rawString(v, e.cat));
        } else if (key == "name") {
            od::json_type t;
            SL_TRY(v.type().get(t));
            if (t == od::json_type::string) SL_TRY(rawString(v, e.name));
        } else if (key == "pid") {
            SL_TRY(parseId(v, e.pid));
        } else if (key == "tid") {
            SL_TRY(parseId(v, e.tid));
        } else if (key == "dur") {
            SL_TRY(parseTime(v, e.dur, e.badTime));
        } else if (key == "args") {
            od::json_type t;
            SL_TRY(v.type().get(t));
            if (t == od::json_type::object) {
                od::object args;
                SL_TRY(v.get_object().get(args));
                SL_TRY(parseArgs(args, e));
            }
        }
    }
    return simdjson::SUCCESS;
}

// otherData.diagnostics of a Sightline export ([{name, count, reason, pid}]); anything else in
// otherData (a producer's free-form metadata) is left alone.
error_code parseOtherData(od::value v, std::vector<Diagnostic>& out) {
    od::object o;
    if (v.get_object().get(o)) return simdjson::SUCCESS;
    for (auto fieldResult : o) {
        od::field field;
        SL_TRY(std::move(fieldResult).get(field));
        std::string_view key;
        SL_TRY(keyOf(field, key));
        if (key != "diagnostics") continue;
        od::array a;
        if (field.value().get_array().get(a)) continue;
        for (auto item : a) {
            od::object d;
            if (item.get_object().get(d)) continue;
            Diagnostic diag;
            for (auto dr : d) {
                od::field df;
                SL_TRY(std::move(dr).get(df));
                std::string_view k;
                SL_TRY(keyOf(df, k));
                std::string_view text;
                int64_t n = 0;
                if (k == "name" && !df.value().get_string().get(text))
                    diag.name = sanitizeUtf8(text);
                else if (k == "reason" && !df.value().get_string().get(text))
                    diag.reason = sanitizeUtf8(text);
                else if (k == "count" && !df.value().get_int64().get(n))
                    diag.count = n;
                else if (k == "pid" && !df.value().get_int64().get(n))
                    diag.pid = n;
            }
            if (!diag.name.empty()) out.push_back(std::move(diag));
        }
    }
    return simdjson::SUCCESS;
}

error_code parseDeviceProperties(od::value v, std::vector<Gpu>& gpus) {
    od::array a;
    SL_TRY(v.get_array().get(a));
    for (auto item : a) {
        od::object o;
        if (item.get_object().get(o)) continue;
        Gpu g;
        for (auto fieldResult : o) {
            od::field field;
            SL_TRY(std::move(fieldResult).get(field));
            std::string_view key;
            SL_TRY(keyOf(field, key));
            od::value fv = field.value();
            int64_t n = 0;
            if (key == "id" && !fv.get_int64().get(n))
                g.deviceId = static_cast<int32_t>(n);
            else if (key == "name") {
                std::string_view s;
                if (!fv.get_string().get(s)) g.name = std::string(s);
            } else if (key == "totalGlobalMem" && !fv.get_int64().get(n))
                g.memoryBytes = n;
            else if (key == "computeMajor" && !fv.get_int64().get(n))
                g.computeMajor = static_cast<int32_t>(n);
            else if (key == "computeMinor" && !fv.get_int64().get(n))
                g.computeMinor = static_cast<int32_t>(n);
            else if (key == "numSms" && !fv.get_int64().get(n))
                g.smCount = static_cast<int32_t>(n);
        }
        gpus.push_back(g);
    }
    return simdjson::SUCCESS;
}

// Parses the chunks of a trace (TraceEventChunks.h) on a worker thread, a few ahead of the
// thread that maps them: each slot holds one chunk's text, its unescaped strings and its
// events, and is reused once the mapper gave it back. Events view their slot's buffers.
class ChunkPipeline {
public:
    struct Slot {
        std::unique_ptr<char[]> buffer;
        EscapedStore escaped;
        std::vector<ChromeEvent> events;  // [0, count) hold the chunk's events
        size_t count = 0;
        uint64_t notObjects = 0;
        enum class State { Free, Ready, Failed } state = State::Free;
    };

    ChunkPipeline(std::string_view data, const std::vector<std::pair<size_t, size_t>>& chunks)
        : m_data(data), m_chunks(chunks) {
        size_t biggest = 0;
        for (const auto& [b, e] : chunks) biggest = std::max(biggest, e - b);
        m_capacity = biggest + 2 + simdjson::SIMDJSON_PADDING;
        for (Slot& s : m_slots) s.buffer.reset(new char[m_capacity]);
        m_worker = std::thread([this] { work(); });
    }
    ~ChunkPipeline() {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_changed.notify_all();
        m_worker.join();
    }

    // Chunk k parsed, or null when it failed to parse (the caller falls back).
    const Slot* take(size_t k) {
        std::unique_lock lock(m_mutex);
        Slot& s = m_slots[k % kSlots];
        m_changed.wait(lock, [&] { return s.state != Slot::State::Free; });
        return s.state == Slot::State::Ready ? &s : nullptr;
    }
    void give(size_t k) {
        {
            std::lock_guard lock(m_mutex);
            m_slots[k % kSlots].state = Slot::State::Free;
        }
        m_changed.notify_all();
    }

private:
    static constexpr size_t kSlots = 3;

    void work() {
        od::parser parser;
        for (size_t k = 0; k < m_chunks.size(); ++k) {
            Slot& s = m_slots[k % kSlots];
            {
                std::unique_lock lock(m_mutex);
                m_changed.wait(lock, [&] { return m_stop || s.state == Slot::State::Free; });
                if (m_stop) return;
            }
            const bool ok = parse(parser, m_chunks[k], s);
            {
                std::lock_guard lock(m_mutex);
                s.state = ok ? Slot::State::Ready : Slot::State::Failed;
            }
            m_changed.notify_all();
            if (!ok) return;
        }
    }

    bool parse(od::parser& parser, std::pair<size_t, size_t> chunk, Slot& s) {
        const size_t n = chunk.second - chunk.first;
        char* buffer = s.buffer.get();
        buffer[0] = '[';
        std::memcpy(buffer + 1, m_data.data() + chunk.first, n);
        buffer[n + 1] = ']';
        std::memset(buffer + n + 2, 0, simdjson::SIMDJSON_PADDING);
        s.escaped.clear();
        s.count = 0;
        s.notObjects = 0;
        t_escaped = &s.escaped;
        od::document doc;
        od::array events;
        if (parser.iterate(simdjson::padded_string_view(buffer, n + 2, m_capacity)).get(doc) ||
            doc.get_array().get(events))
            return false;
        for (auto item : events) {
            od::value v;
            od::json_type t;
            if (item.get(v) || v.type().get(t)) return false;
            if (t != od::json_type::object) {
                ++s.notObjects;
                continue;
            }
            od::object obj;
            if (v.get_object().get(obj)) return false;
            if (s.count == s.events.size()) s.events.emplace_back();
            ChromeEvent& e = s.events[s.count];
            e.clear();
            if (parseEvent(obj, e)) return false;
            ++s.count;
        }
        const char* rest = nullptr;
        return !(doc.current_location().get(rest) == simdjson::SUCCESS && rest &&
                 rest < buffer + n + 2);
    }

    std::string_view m_data;
    const std::vector<std::pair<size_t, size_t>>& m_chunks;
    size_t m_capacity = 0;
    Slot m_slots[kSlots];
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_stop = false;
    std::thread m_worker;
};

class Parser {
public:
    Parser(const std::string& path, const LoadedFile& file, const ImportOptions& options,
           KinetoEventMapper& mapper)
        : m_path(path), m_file(file), m_data(file.view()), m_options(options), m_mapper(mapper) {}

    Status run(TraceHeader& header) {
        t_escaped = &m_escaped;
        simdjson::padded_string_view view(m_data.data(), m_data.size(), m_file.capacity);
        od::document doc;
        if (auto err = m_parser.iterate(view).get(doc)) return fail(err, nullptr);
        m_doc = &doc;
        od::json_type t;
        if (auto err = doc.type().get(t)) return fail(err, &doc);
        if (t == od::json_type::array) {
            od::array events;
            if (auto err = doc.get_array().get(events)) return fail(err, &doc);
            if (auto err = readEvents(events)) return fail(err, &doc);
        } else if (t == od::json_type::object) {
            od::object top;
            if (auto err = doc.get_object().get(top)) return fail(err, &doc);
            bool sawEvents = false;
            if (auto err = readTop(top, header, sawEvents)) return fail(err, &doc);
            if (!sawEvents)
                return Error{"'" + m_path +
                             "' is JSON but not a Chrome trace: it has no traceEvents array"};
        } else {
            return Error{"'" + m_path +
                         "' is JSON but not a Chrome trace: the top level is neither an object nor "
                         "an array"};
        }
        if (m_cancelled) return stopped();
        const char* rest = nullptr;
        if (doc.current_location().get(rest) == simdjson::SUCCESS && rest &&
            rest < m_data.data() + m_data.size())
            return fail(simdjson::TRAILING_CONTENT, &doc);
        return Status::success();
    }

    enum class Chunked { NotUsed, Done, Failed };

    // Parses a big trace chunk by chunk (see TraceEventChunks.h). NotUsed or Failed: the caller
    // parses the whole document with run() on a fresh mapper (Failed may have fed some events).
    Chunked runChunked(const ChunkPolicy& policy, TraceHeader& header, Status& status) {
        t_escaped = &m_escaped;
        if (m_data.size() < policy.minBytes || m_data.front() != '{') return Chunked::NotUsed;
        // The planner reads a page at each cut (and the kernel maps its neighbours): a mapped
        // file's pages go back behind it, and come in again as the parse reaches them.
        auto plan = planTraceEventChunks(m_data, policy.chunkBytes, [this](size_t upTo) {
            if (upTo > m_planReleased + (size_t{4} << 20)) {
                releaseMapped(m_file, m_planReleased, upTo);
                m_planReleased = upTo;
            }
        });
        if (!plan) return Chunked::NotUsed;
        // Step 1: the header is the document with an empty traceEvents; it must parse.
        size_t close = 0;
        bool found = false;
        for (size_t candidate : plan->closeCandidates) {
            std::string text;
            text.reserve(plan->arrayOpen + 2 + (m_data.size() - candidate));
            text.append(m_data.substr(0, plan->arrayOpen))
                .append("[]")
                .append(m_data.substr(candidate + 1));
            simdjson::padded_string padded(text);
            od::parser parser;
            od::document doc;
            od::object top;
            TraceHeader h;
            bool saw = false;
            const char* rest = nullptr;
            if (parser.iterate(padded).get(doc) || doc.get_object().get(top) ||
                readTop(top, h, saw) || !saw)
                continue;
            if (doc.current_location().get(rest) == simdjson::SUCCESS && rest &&
                rest < padded.data() + padded.size())
                continue;
            header = std::move(h);
            close = candidate;
            found = true;
            break;
        }
        if (!found) return Chunked::NotUsed;
        // Step 2: each chunk as an array of its own. A worker thread parses the chunks into
        // events while this thread maps them, the chunk before: parse and map on two cores.
        const auto chunks = chunksBefore(m_data, *plan, close);
        releaseMapped(m_file, 0, m_data.size());  // the header and the last cuts planned
        ChunkPipeline pipeline(m_data, chunks);
        m_doc = nullptr;
        size_t released = 0;
        for (size_t k = 0; k < chunks.size(); ++k) {
            const ChunkPipeline::Slot* slot = pipeline.take(k);
            if (!slot) return Chunked::Failed;
            for (size_t i = 0; i < slot->count; ++i) m_mapper.add(slot->events[i]);
            for (uint64_t i = 0; i < slot->notObjects; ++i) m_mapper.countNotAnObject();
            pipeline.give(k);
            // A mapped file's pages behind the parse go back.
            const size_t e = chunks[k].second;
            releaseMapped(m_file, released, e);
            released = e;
            if (m_options.progress &&
                !m_options.progress(0.1 + 0.7 * static_cast<double>(e) /
                                              static_cast<double>(m_data.size()))) {
                status = Error{"cancelled"};
                return Chunked::Done;
            }
        }
        status = Status::success();
        return Chunked::Done;
    }

private:
    static Status stopped() { return Error{"cancelled"}; }

    Status fail(error_code err, od::document* doc) {
        if (m_cancelled) return stopped();
        size_t offset = m_data.size();
        if (doc) {
            const char* p = nullptr;
            if (doc->current_location().get(p) == simdjson::SUCCESS && p >= m_data.data() &&
                p <= m_data.data() + m_data.size())
                offset = static_cast<size_t>(p - m_data.data());
        }
        if (err == simdjson::UTF8_ERROR)
            return Error{"'" + m_path + "' is not valid JSON: invalid UTF-8 text"};
        // The fast parser knows roughly where it stopped; a plain syntax walk knows exactly.
        if (auto syntax = findJsonSyntaxError(m_data))
            return Error{"'" + m_path + "' is not valid JSON: " + syntax->what + " at byte " +
                         std::to_string(syntax->offset)};
        return Error{"'" + m_path + "' is not valid JSON: " + simdjson::error_message(err) +
                     " at byte " + std::to_string(offset) +
                     (offset >= m_data.size() ? " (end of input)" : "")};
    }

    error_code readTop(od::object top, TraceHeader& h, bool& sawEvents) {
        for (auto fieldResult : top) {
            od::field field;
            SL_TRY(std::move(fieldResult).get(field));
            std::string_view key;
            SL_TRY(keyOf(field, key));
            od::value v = field.value();
            if (key == "traceEvents") {
                od::array events;
                SL_TRY(v.get_array().get(events));
                SL_TRY(readEvents(events));
                sawEvents = true;
                if (m_cancelled) return simdjson::SUCCESS;
            } else if (key == "baseTimeNanoseconds") {
                const std::string_view raw = v.raw_json_token();
                h.baseTimeNs = decimalToNs(trimRaw(raw), 1);
                h.kinetoMarkers = true;
            } else if (key == "displayTimeUnit") {
                std::string_view s;
                if (!v.get_string().get(s)) h.displayTimeUnit = std::string(s);
            } else if (key == "traceName") {
                std::string_view s;
                if (!v.get_string().get(s)) h.traceName = std::string(s);
            } else if (key == "schemaVersion") {
                int64_t n = 0;
                if (!v.get_int64().get(n)) h.schemaVersion = n;
                h.kinetoMarkers = true;
            } else if (key == "otherData") {
                SL_TRY(parseOtherData(v, h.diagnostics));
            } else if (key == "deviceProperties") {
                SL_TRY(parseDeviceProperties(v, h.gpus));
                h.kinetoMarkers = true;
            } else if (key == "stackFrames") {
                SL_TRY(parseStackFrames(v, h.stackFrames));  // KinetoSampleRecords.cpp
            } else if (key == "samples") {
                SL_TRY(parseSamples(v, h));
            } else if (key == "distributedInfo") {
                od::object o;
                if (!v.get_object().get(o)) {
                    int64_t rank = 0;
                    if (!o["rank"].get_int64().get(rank)) h.rank = rank;
                }
                h.kinetoMarkers = true;
            }
        }
        return simdjson::SUCCESS;
    }

    error_code readEvents(od::array events) {
        ChromeEvent e;
        for (auto item : events) {
            od::value v;
            SL_TRY(item.get(v));
            od::json_type t;
            SL_TRY(v.type().get(t));
            if (t != od::json_type::object) {
                m_mapper.countNotAnObject();
                continue;
            }
            od::object obj;
            SL_TRY(v.get_object().get(obj));
            e.clear();
            SL_TRY(parseEvent(obj, e));
            m_mapper.add(e);
            if ((++m_events & 0xFFFF) == 0 && m_options.progress && m_doc) {
                // (chunked: progress per chunk)
                const char* p = nullptr;
                double f = 0.5;
                if (!m_doc->current_location().get(p))
                    f = static_cast<double>(p - m_data.data()) / static_cast<double>(m_data.size());
                if (!m_options.progress(0.1 + 0.7 * f)) {
                    m_cancelled = true;
                    return simdjson::SUCCESS;
                }
            }
        }
        return simdjson::SUCCESS;
    }

    const std::string& m_path;
    const LoadedFile& m_file;
    std::string_view m_data;
    const ImportOptions& m_options;
    KinetoEventMapper& m_mapper;
    od::parser m_parser;
    od::document* m_doc = nullptr;
    EscapedStore m_escaped;  // must outlive the mapper's use of event strings
    uint64_t m_events = 0;
    size_t m_planReleased = 0;  // the planner's pages given back before this offset
    bool m_cancelled = false;
};

// Parses `path` into the mapper `fresh` gives (a new one for each attempt: a failed chunked
// parse may have fed it some events).
Status parseTrace(const std::string& path, const ImportOptions& options,
                  const ChunkPolicy& chunking,
                  const std::function<KinetoEventMapper&()>& fresh, TraceHeader& header) {
    // Step 1: a big plain file is mapped and parsed chunk by chunk, its pages given back behind
    // the parse, so memory does not grow with the file.
    if (auto mapped = mapPlainFile(path); mapped && mapped->size >= chunking.minBytes) {
        Parser parser(path, *mapped, options, fresh());
        Status status;
        if (parser.runChunked(chunking, header, status) == Parser::Chunked::Done) return status;
        header = TraceHeader{};
    }
    // Step 2: the whole file in memory (gzip, small files, the JSON Array Format, and any file
    // the chunked parse could not take, whose error then names the byte at fault).
    std::function<bool(double)> readProgress;
    if (options.progress) readProgress = [&options](double f) { return options.progress(0.1 * f); };
    auto file = loadMaybeGzip(path, simdjson::SIMDJSON_PADDING, readProgress);
    if (!file) return Error{file.error()};
    // A gzip file must hold JSON to be a Chrome trace.
    size_t first = 0;
    const std::string_view data = file->view();
    while (first < data.size() && (data[first] == ' ' || data[first] == '\n' ||
                                   data[first] == '\r' || data[first] == '\t'))
        ++first;
    if (first == data.size())
        return makeError("'" + path + "' is empty" +
                         std::string(file->wasGzip ? " once decompressed" : "") +
                         ": not a Chrome trace");
    if (data[first] != '{' && data[first] != '[')
        return makeError("'" + path + "' is not a supported trace: " +
                         (file->wasGzip ? "the gzip file does not hold JSON" : "it is not JSON"));
    // The JSON Array Format lets a trace end without its ']' (a program that crashed while
    // tracing): close it in a copy.
    if (data[first] == '[') {
        size_t last = data.size();
        while (last > first && std::isspace(static_cast<unsigned char>(data[last - 1]))) --last;
        if (last > first + 1 && (data[last - 1] == ',' || data[last - 1] == '}')) {
            LoadedFile closed;
            closed.capacity = last + 1 + simdjson::SIMDJSON_PADDING;
            closed.buffer.reset(static_cast<char*>(std::malloc(closed.capacity)));
            if (!closed.buffer) return makeError("cannot import '" + path + "': out of memory");
            std::memcpy(closed.buffer.get(), data.data(), last);
            if (data[last - 1] == ',') --last;
            closed.buffer.get()[last] = ']';
            closed.size = last + 1;
            std::memset(closed.buffer.get() + closed.size, 0, closed.capacity - closed.size);
            closed.wasGzip = file->wasGzip;
            *file = std::move(closed);
        }
    }
    {
        Parser parser(path, *file, options, fresh());
        Status status;
        if (parser.runChunked(chunking, header, status) == Parser::Chunked::Done) return status;
        header = TraceHeader{};
    }
    Parser parser(path, *file, options, fresh());
    return parser.run(header);
}

Status noEvents(const std::string& path, const KinetoEventMapper& mapper) {
    if (mapper.eventsSeen() != 0) return Status::success();
    return makeError("'" + path + "' holds no trace events (its traceEvents has no event objects)");
}

}  // namespace

Result<std::shared_ptr<Report>> importChromeTrace(const std::string& path,
                                                  const ImportOptions& options,
                                                  const ChunkPolicy& chunking) {
    std::optional<KinetoEventMapper> mapper;
    auto fresh = [&mapper]() -> KinetoEventMapper& { return mapper.emplace(); };
    TraceHeader header;
    if (Status s = parseTrace(path, options, chunking, fresh, header); !s) return Error{s.error()};
    if (Status s = noEvents(path, *mapper); !s) return Error{s.error()};
    return mapper->finish(header, [&options](double f) {
        if (options.progress) options.progress(0.8 + 0.2 * f);
    });
}

Result<ImportWritten> importChromeTraceToReport(const std::string& path, const std::string& output,
                                                const ImportOptions& options,
                                                const WriteOptions& write,
                                                const ChunkPolicy& chunking,
                                                const SpoolPolicy& spooling) {
    auto writer = RepWriter::create(output, write);  // before the parse: a bad -o fails at once
    if (!writer) return Error{writer.error()};
    std::optional<TrackSpool> spool;
    std::optional<KinetoEventMapper> mapper;
    auto fresh = [&]() -> KinetoEventMapper& {
        mapper.reset();
        spool.emplace(spooling);
        mapper.emplace().setSpool(&*spool);
        return *mapper;
    };
    TraceHeader header;
    if (Status s = parseTrace(path, options, chunking, fresh, header); !s) return Error{s.error()};
    if (Status s = noEvents(path, *mapper); !s) return Error{s.error()};
    auto streamed = mapper->finishInto(header, **writer, [&options](double f) {
        if (options.progress) options.progress(0.8 + 0.2 * f);
    });
    if (!streamed) return Error{streamed.error()};
    if (Status s = (*writer)->commit(*streamed->meta); !s) return Error{s.error()};
    ImportWritten out;
    out.events = streamed->events;
    out.source = streamed->meta->session.source;
    out.diagnostics = streamed->meta->diagnostics.size();
    return out;
}

}  // namespace sl::import
