#include "model/util/JsonWriter.h"

#include "model/util/Utf8.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace sl {

void JsonWriter::newline() {
    if (!m_pretty) return;
    m_out << '\n';
    for (size_t i = 0; i < m_first.size(); ++i) m_out << "  ";
}

void JsonWriter::separator() {
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_first.empty()) {
        if (!m_first.back()) m_out << ',';
        m_first.back() = false;
        newline();
    }
}

JsonWriter& JsonWriter::beginObject() {
    separator();
    m_out << '{';
    m_first.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::endObject() {
    bool empty = m_first.back();
    m_first.pop_back();
    if (!empty) newline();
    m_out << '}';
    return *this;
}

JsonWriter& JsonWriter::beginArray() {
    separator();
    m_out << '[';
    m_first.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::endArray() {
    bool empty = m_first.back();
    m_first.pop_back();
    if (!empty) newline();
    m_out << ']';
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
    separator();
    std::string s;
    escape(s, k);
    m_out << s << (m_pretty ? ": " : ":");
    m_afterKey = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
    separator();
    std::string s;
    escape(s, v);
    m_out << s;
    return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
    separator();
    while (!json.empty() && (json.back() == '\n' || json.back() == ' ')) json.remove_suffix(1);
    m_out << json;
    return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
    separator();
    m_out << v;
    return *this;
}

JsonWriter& JsonWriter::value(uint64_t v) {
    separator();
    m_out << v;
    return *this;
}

JsonWriter& JsonWriter::value(double v) {
    separator();
    if (!std::isfinite(v)) {
        m_out << "null";
        return *this;
    }
    // The shortest text that reads back as the same double: 55270.1, not the 55270.099999999999
    // of "%.17g" (stats -f json showed that), and exact for every value all the same. A whole
    // number below 2^53 is written as one (100000000, not the shortest form's 1e+08, which
    // readers take for a float and text comparisons miss).
    char buf[32];
    const auto r = std::abs(v) < 9007199254740992.0 && v == std::trunc(v)
                       ? std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v))
                       : std::to_chars(buf, buf + sizeof buf, v);
    m_out.write(buf, r.ptr - buf);
    return *this;
}

JsonWriter& JsonWriter::value(bool v) {
    separator();
    m_out << (v ? "true" : "false");
    return *this;
}

JsonWriter& JsonWriter::null() {
    separator();
    m_out << "null";
    return *this;
}

void JsonWriter::escape(std::string& out, std::string_view s) {
    out.push_back('"');
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const size_t n = s.size();
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        if (c < 0x80) {
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                default:
                    if (c < 0x20) {
                        char buf[8];
                        std::snprintf(buf, sizeof buf, "\\u%04x", c);
                        out += buf;
                    } else {
                        out.push_back(static_cast<char>(c));
                    }
            }
            ++i;
            continue;
        }
        // One UTF-8 sequence, copied when valid, else U+FFFD for its first byte.
        if (const size_t len = utf8SequenceLength(s, i); len > 0) {
            out.append(s.substr(i, len));
            i += len;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    out.push_back('"');
}

}  // namespace sl
