#include "model/core/Column.h"

#include <bit>
#include <cstring>

namespace sl {

namespace {
Column::Storage makeStorage(ColumnType t) {
    switch (t) {
        case ColumnType::I64: return std::vector<int64_t>{};
        case ColumnType::U64: return std::vector<uint64_t>{};
        case ColumnType::I32: return std::vector<int32_t>{};
        case ColumnType::U32: return std::vector<uint32_t>{};
        case ColumnType::I16: return std::vector<int16_t>{};
        case ColumnType::U8: return std::vector<uint8_t>{};
        case ColumnType::F64: return std::vector<double>{};
    }
    return std::vector<int64_t>{};
}
}  // namespace

Column::Column(ColumnType type) : m_data(makeStorage(type)) {}

size_t Column::size() const {
    return std::visit([](const auto& v) { return v.size(); }, m_data);
}

size_t Column::memoryBytes() const {
    return std::visit([](const auto& v) { return v.capacity() * sizeof(v[0]); }, m_data);
}

int64_t Column::intAt(size_t i) const {
    return std::visit(
        [i](const auto& v) -> int64_t {
            using T = std::decay_t<decltype(v[0])>;
            if constexpr (std::is_same_v<T, double>) return static_cast<int64_t>(v[i]);
            else return static_cast<int64_t>(v[i]);
        },
        m_data);
}

double Column::doubleAt(size_t i) const {
    return std::visit(
        [i](const auto& v) -> double {
            return static_cast<double>(v[i]);
        },
        m_data);
}

void Column::pushInt(int64_t x) {
    std::visit(
        [x](auto& v) {
            using T = std::decay_t<decltype(v[0])>;
            if constexpr (std::is_same_v<T, double>) v.push_back(std::bit_cast<double>(x));
            else v.push_back(static_cast<T>(x));
        },
        m_data);
}

void Column::pushDouble(double x) {
    std::visit(
        [x](auto& v) {
            using T = std::decay_t<decltype(v[0])>;
            v.push_back(static_cast<T>(x));
        },
        m_data);
}

void Column::setInt(size_t i, int64_t x) {
    std::visit(
        [i, x](auto& v) {
            using T = std::decay_t<decltype(v[0])>;
            if constexpr (std::is_same_v<T, double>) v[i] = std::bit_cast<double>(x);
            else v[i] = static_cast<T>(x);
        },
        m_data);
}

void Column::reserve(size_t n) {
    std::visit([n](auto& v) { v.reserve(n); }, m_data);
}
void Column::resize(size_t n) {
    std::visit([n](auto& v) { v.resize(n); }, m_data);
}
void Column::clear() {
    std::visit([](auto& v) { v.clear(); }, m_data);
}
void Column::shrinkToFit() {
    std::visit([](auto& v) { v.shrink_to_fit(); }, m_data);
}

void Column::permute(const std::vector<uint32_t>& order) {
    std::visit(
        [&order](auto& v) {
            std::decay_t<decltype(v)> out(order.size());
            for (size_t k = 0; k < order.size(); ++k) out[k] = v[order[k]];
            v.swap(out);
        },
        m_data);
}

void Column::appendRange(const Column& other, size_t begin, size_t end) {
    std::visit(
        [&](auto& v) {
            using V = std::decay_t<decltype(v)>;
            const auto& src = std::get<V>(other.m_data);
            v.insert(v.end(), src.begin() + static_cast<ptrdiff_t>(begin),
                     src.begin() + static_cast<ptrdiff_t>(end));
        },
        m_data);
}

}  // namespace sl
