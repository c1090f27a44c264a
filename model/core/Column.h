#pragma once
// One typed column of a track: a std::vector of the column's exact width, so a track costs
// only the bytes its kind needs. Generic code (codec, exporters) reads and writes through the
// int64/double accessors; hot code takes the typed vector with get<T>().
#include <cstdint>
#include <variant>
#include <vector>

#include "model/core/Schema.h"

namespace sl {

class Column {
public:
    using Storage = std::variant<std::vector<int64_t>, std::vector<uint64_t>, std::vector<int32_t>,
                                 std::vector<uint32_t>, std::vector<int16_t>, std::vector<uint8_t>,
                                 std::vector<double>>;

    explicit Column(ColumnType type = ColumnType::I64);

    ColumnType type() const { return static_cast<ColumnType>(m_data.index()); }
    size_t size() const;
    size_t memoryBytes() const;

    template <class T>
    const std::vector<T>& get() const { return std::get<std::vector<T>>(m_data); }
    template <class T>
    std::vector<T>& get() { return std::get<std::vector<T>>(m_data); }

    // Integer view of any integer column (u64 values are returned bit-for-bit).
    int64_t intAt(size_t i) const;
    double doubleAt(size_t i) const;  // any column as a double
    void pushInt(int64_t v);          // truncates to the column's width; F64 takes the bits
    void pushDouble(double v);
    void setInt(size_t i, int64_t v);

    void reserve(size_t n);
    void resize(size_t n);
    void clear();
    void shrinkToFit();
    // this[k] = old[order[k]]
    void permute(const std::vector<uint32_t>& order);
    void appendRange(const Column& other, size_t begin, size_t end);

private:
    Storage m_data;
};

}  // namespace sl
