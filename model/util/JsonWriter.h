#pragma once
// A small streaming JSON writer (objects, arrays, escaped strings, numbers). Invalid UTF-8 in
// strings is replaced with U+FFFD so the output always parses.
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace sl {

class JsonWriter {
public:
    explicit JsonWriter(std::ostream& out, bool pretty = true) : m_out(out), m_pretty(pretty) {}

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view k);
    JsonWriter& value(std::string_view v);
    JsonWriter& value(const char* v) { return value(std::string_view(v)); }
    JsonWriter& value(const std::string& v) { return value(std::string_view(v)); }
    JsonWriter& value(int64_t v);
    JsonWriter& value(uint64_t v);
    JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
    JsonWriter& value(unsigned v) { return value(static_cast<uint64_t>(v)); }
    JsonWriter& value(double v);
    JsonWriter& value(bool v);
    JsonWriter& null();
    // A value that is already JSON text (a document another writer made), written as is.
    JsonWriter& raw(std::string_view json);
    template <class T>
    JsonWriter& field(std::string_view k, const T& v) { key(k); return value(v); }

    static void escape(std::string& out, std::string_view s);

private:
    void separator();
    void newline();

    std::ostream& m_out;
    bool m_pretty;
    std::vector<bool> m_first;  // per open container: nothing written yet
    bool m_afterKey = false;
};

}  // namespace sl
