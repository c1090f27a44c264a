#include "model/import/JsonSyntaxCheck.h"

#include <vector>

namespace sl::import {
namespace {

class Checker {
public:
    explicit Checker(std::string_view t) : m_t(t) {}

    std::optional<JsonSyntaxError> run() {
        // Step 1: walk values with an explicit stack of open containers ('{' or '[').
        std::vector<char> stack;
        skipSpace();
        if (!value(stack)) return m_error;
        for (;;) {
            if (stack.empty()) break;
            skipSpace();
            const char open = stack.back();
            if (m_i >= m_t.size())
                return fail("the input ends inside an " +
                            std::string(open == '{' ? "object" : "array"));
            const char c = m_t[m_i];
            if (c == (open == '{' ? '}' : ']')) {
                ++m_i;
                stack.pop_back();
                continue;
            }
            if (c != ',')
                return fail(std::string("expected ',' or '") + (open == '{' ? '}' : ']') + "'");
            ++m_i;
            skipSpace();
            if (open == '{' && !member()) return m_error;
            if (open == '[' && !value(stack)) return m_error;
        }
        // Step 2: nothing but whitespace may follow.
        skipSpace();
        if (m_i < m_t.size()) return fail("unexpected content after the end of the JSON value");
        return std::nullopt;
    }

private:
    void skipSpace() {
        while (m_i < m_t.size() &&
               (m_t[m_i] == ' ' || m_t[m_i] == '\n' || m_t[m_i] == '\r' || m_t[m_i] == '\t'))
            ++m_i;
    }
    std::optional<JsonSyntaxError> fail(std::string what) {
        m_error = JsonSyntaxError{m_i, std::move(what)};
        return m_error;
    }
    bool failed(std::string what) {
        fail(std::move(what));
        return false;
    }

    // After '{' or ',' in an object: "key": then a value (pushed if a container opens).
    bool member() {
        if (m_i >= m_t.size() || m_t[m_i] != '"') return failed("expected a string key");
        if (!string()) return false;
        skipSpace();
        if (m_i >= m_t.size() || m_t[m_i] != ':') return failed("expected ':' after the key");
        ++m_i;
        skipSpace();
        return value(*m_stack);
    }

    bool value(std::vector<char>& stack) {
        m_stack = &stack;
        if (m_i >= m_t.size()) return failed("the input ends where a value was expected");
        const char c = m_t[m_i];
        if (c == '{' || c == '[') {
            ++m_i;
            skipSpace();
            if (m_i < m_t.size() && m_t[m_i] == (c == '{' ? '}' : ']')) {
                ++m_i;
                return true;
            }
            stack.push_back(c);
            if (c == '{') return member();
            return value(stack);
        }
        if (c == '"') return string();
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        for (const char* lit : {"true", "false", "null"}) {
            const std::string_view l(lit);
            if (m_t.substr(m_i, l.size()) == l) {
                m_i += l.size();
                return true;
            }
        }
        return failed(std::string("unexpected character '") + c + "' where a value was expected");
    }

    bool string() {
        const size_t start = m_i++;
        while (m_i < m_t.size()) {
            const auto c = static_cast<unsigned char>(m_t[m_i]);
            if (c == '"') {
                ++m_i;
                return true;
            }
            if (c == '\\') {
                m_i += 2;
                continue;
            }
            if (c < 0x20) return failed("a control character inside a string");
            ++m_i;
        }
        m_i = start;
        return failed("a string that is never closed");
    }

    bool number() {
        if (m_t[m_i] == '-') ++m_i;
        const size_t digits = m_i;
        while (m_i < m_t.size() && m_t[m_i] >= '0' && m_t[m_i] <= '9') ++m_i;
        if (m_i == digits) return failed("a malformed number");
        if (m_i < m_t.size() && m_t[m_i] == '.') {
            ++m_i;
            const size_t f = m_i;
            while (m_i < m_t.size() && m_t[m_i] >= '0' && m_t[m_i] <= '9') ++m_i;
            if (m_i == f) return failed("a malformed number");
        }
        if (m_i < m_t.size() && (m_t[m_i] == 'e' || m_t[m_i] == 'E')) {
            ++m_i;
            if (m_i < m_t.size() && (m_t[m_i] == '+' || m_t[m_i] == '-')) ++m_i;
            const size_t e = m_i;
            while (m_i < m_t.size() && m_t[m_i] >= '0' && m_t[m_i] <= '9') ++m_i;
            if (m_i == e) return failed("a malformed number");
        }
        return true;
    }

    std::string_view m_t;
    size_t m_i = 0;
    std::vector<char>* m_stack = nullptr;
    std::optional<JsonSyntaxError> m_error;
};

}  // namespace

std::optional<JsonSyntaxError> findJsonSyntaxError(std::string_view text) {
    return Checker(text).run();
}

}  // namespace sl::import
