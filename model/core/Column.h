#pragma once
// One typed column of a track: a std::vector of the column's exact width, so a track costs
// only the bytes its kind needs. Generic code (codec, exporters) reads and writes through the
// int64/double accessors; hot code reads a typed view with view<T>().
//
// A column whose values are all the same is held as that value and a count, with no vector
// (decision 18 in docs/ARCHITECTURE.md): most NVTX ranges have no category, color, payload or
// end thread, and those columns were 26 of the 46 bytes each range cost while merging and
// loading. The first different value writes the vector out. Reads go through ColumnView, which
// answers from either form, so no reader can tell.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <variant>
#include <vector>

#include "model/core/Schema.h"

namespace sl {

// Read-only typed access to a column: indexing and iteration, over the values or the one
// repeated value. Cheap to copy; valid while the column is not changed.
template <class T>
class ColumnView {
public:
    class iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = T;
        iterator() = default;
        iterator(const ColumnView* v, size_t i) : m_v(v), m_i(i) {}
        T operator*() const { return (*m_v)[m_i]; }
        T operator[](difference_type k) const { return (*m_v)[m_i + static_cast<size_t>(k)]; }
        iterator& operator++() { ++m_i; return *this; }
        iterator operator++(int) { iterator o = *this; ++m_i; return o; }
        iterator& operator--() { --m_i; return *this; }
        iterator operator--(int) { iterator o = *this; --m_i; return o; }
        iterator& operator+=(difference_type k) { m_i += static_cast<size_t>(k); return *this; }
        iterator& operator-=(difference_type k) { m_i -= static_cast<size_t>(k); return *this; }
        iterator operator+(difference_type k) const { return {m_v, m_i + static_cast<size_t>(k)}; }
        friend iterator operator+(difference_type k, iterator it) { return it + k; }
        iterator operator-(difference_type k) const { return {m_v, m_i - static_cast<size_t>(k)}; }
        difference_type operator-(const iterator& o) const {
            return static_cast<difference_type>(m_i) - static_cast<difference_type>(o.m_i);
        }
        auto operator<=>(const iterator& o) const { return m_i <=> o.m_i; }
        bool operator==(const iterator& o) const { return m_i == o.m_i; }

    private:
        const ColumnView* m_v = nullptr;
        size_t m_i = 0;
    };

    ColumnView(const T* data, size_t size, T uniform) : m_data(data), m_size(size), m_uniform(uniform) {}
    T operator[](size_t i) const { return m_data ? m_data[i] : m_uniform; }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    T back() const { return (*this)[m_size - 1]; }
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, m_size}; }

private:
    const T* m_data;  // null while the column is one repeated value
    size_t m_size;
    T m_uniform;
};

class Column {
public:
    using Storage = std::variant<std::vector<int64_t>, std::vector<uint64_t>, std::vector<int32_t>,
                                 std::vector<uint32_t>, std::vector<int16_t>, std::vector<uint8_t>,
                                 std::vector<double>>;

    explicit Column(ColumnType type = ColumnType::I64);

    ColumnType type() const { return static_cast<ColumnType>(m_data.index()); }
    size_t size() const;
    size_t memoryBytes() const;
    // Every value is the same one and no vector is held (also true of an empty column).
    bool uniform() const { return !m_written; }

    template <class T>
    ColumnView<T> view() const {
        const auto& v = std::get<std::vector<T>>(m_data);
        if (m_written) return {v.data(), v.size(), T{}};
        return {nullptr, m_count, fromBits<T>(m_bits)};
    }
    // The values as a vector to change in bulk: a uniform column is written out first.
    template <class T>
    std::vector<T>& values() {
        writeOut();
        return std::get<std::vector<T>>(m_data);
    }
    template <class T>
    void push(T x) {
        if (!m_written) {
            if (m_count == 0) m_bits = toBits(x);
            if (toBits(x) == m_bits) { ++m_count; return; }
            writeOut();
        }
        std::get<std::vector<T>>(m_data).push_back(x);
    }

    // Integer view of any integer column (u64 values are returned bit-for-bit).
    int64_t intAt(size_t i) const;
    double doubleAt(size_t i) const;  // any column as a double
    void pushInt(int64_t v);          // truncates to the column's width; F64 takes the bits
    // pushInt of n values with one type dispatch (the reader's bulk path).
    void appendInts(const int64_t* values, size_t n);
    void pushDouble(double v);
    void setInt(size_t i, int64_t v);

    void reserve(size_t n);
    void resize(size_t n);  // new values are 0
    void clear();
    void shrinkToFit();
    // this[k] = old[order[k]]
    void permute(const std::vector<uint32_t>& order);
    void appendRange(const Column& other, size_t begin, size_t end);

private:
    template <class T>
    static int64_t toBits(T x) {
        if constexpr (std::is_same_v<T, double>) return std::bit_cast<int64_t>(x);
        else return static_cast<int64_t>(x);
    }
    template <class T>
    static T fromBits(int64_t b) {
        if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(b);
        else return static_cast<T>(b);
    }
    // Turns the uniform form into the vector form (no-op once written).
    void writeOut();

    Storage m_data;
    bool m_written = false;  // the values are in m_data; else m_count copies of m_bits
    size_t m_count = 0;
    int64_t m_bits = 0;      // the uniform value, as toBits<T> gives it
    size_t m_reserved = 0;   // capacity asked for while uniform, granted when written out
};

}  // namespace sl
