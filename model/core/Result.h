#pragma once
// Errors are values in model/: every fallible call returns Result<T> (or Status) whose
// message names the file, table, chunk or byte offset at fault. No exceptions cross the
// model's boundary.
#include <string>
#include <utility>
#include <variant>

namespace sl {

struct Error {
    std::string message;
};

inline Error makeError(std::string message) { return Error{std::move(message)}; }

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const std::string& error() const { return std::get<1>(m_v).message; }
    Error takeError() && { return std::get<1>(std::move(m_v)); }

private:
    std::variant<T, Error> m_v;
};

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error.message)), m_failed(true) {}
    static Status success() { return {}; }
    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const std::string& error() const { return m_error; }

private:
    std::string m_error;
    bool m_failed = false;
};

}  // namespace sl
