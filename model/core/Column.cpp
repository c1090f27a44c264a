#include "model/core/Column.h"
#include "model/core/HugePages.h"

#include <algorithm>
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

template <class T>
using Elem = std::decay_t<decltype(std::declval<T&>()[0])>;
}  // namespace

Column::Column(ColumnType type) : m_data(makeStorage(type)) {}

size_t Column::size() const {
    if (!m_written) return m_count;
    return std::visit([](const auto& v) { return v.size(); }, m_data);
}

size_t Column::memoryBytes() const {
    return std::visit([](const auto& v) { return v.capacity() * sizeof(v[0]); }, m_data);
}

void Column::writeOut() {
    if (m_written) return;
    m_written = true;
    std::visit(
        [this](auto& v) {
            using T = Elem<decltype(v)>;
            v.reserve(std::max(m_reserved, m_count));
            adviseHugePages(v);
            v.assign(m_count, fromBits<T>(m_bits));
        },
        m_data);
    m_count = 0;
    m_bits = 0;
    m_reserved = 0;
}

int64_t Column::intAt(size_t i) const {
    return std::visit(
        [this, i](const auto& v) -> int64_t {
            using T = Elem<decltype(v)>;
            const T x = m_written ? v[i] : fromBits<T>(m_bits);
            return static_cast<int64_t>(x);
        },
        m_data);
}

double Column::doubleAt(size_t i) const {
    return std::visit(
        [this, i](const auto& v) -> double {
            using T = Elem<decltype(v)>;
            return static_cast<double>(m_written ? v[i] : fromBits<T>(m_bits));
        },
        m_data);
}

void Column::pushInt(int64_t x) {
    std::visit(
        [this, x](auto& v) {
            using T = Elem<decltype(v)>;
            if constexpr (std::is_same_v<T, double>) push<double>(std::bit_cast<double>(x));
            else push<T>(static_cast<T>(x));
        },
        m_data);
}

void Column::appendInts(const int64_t* x, size_t n) {
    std::visit(
        [this, x, n](auto& v) {
            using T = Elem<decltype(v)>;
            auto conv = [](int64_t i) {
                if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(i);
                else return static_cast<T>(i);
            };
            size_t k = 0;
            if (!m_written) {  // stays one repeated value as long as the values allow
                if (n && m_count == 0) m_bits = toBits(conv(x[0]));
                while (k < n && toBits(conv(x[k])) == m_bits) ++k;
                m_count += k;
                if (k == n) return;
                writeOut();
            }
            const size_t old = v.size();
            v.resize(old + (n - k));
            T* out = v.data() + old;
            for (size_t i = k; i < n; ++i) out[i - k] = conv(x[i]);
        },
        m_data);
}

void Column::pushDouble(double x) {
    std::visit(
        [this, x](auto& v) {
            using T = Elem<decltype(v)>;
            push<T>(static_cast<T>(x));
        },
        m_data);
}

void Column::setInt(size_t i, int64_t x) {
    std::visit(
        [this, i, x](auto& v) {
            using T = Elem<decltype(v)>;
            T value;
            if constexpr (std::is_same_v<T, double>) value = std::bit_cast<double>(x);
            else value = static_cast<T>(x);
            if (!m_written && toBits(value) == m_bits) return;
            writeOut();
            v[i] = value;
        },
        m_data);
}

void Column::reserve(size_t n) {
    if (!m_written) {
        m_reserved = std::max(m_reserved, n);
        return;
    }
    std::visit([n](auto& v) { v.reserve(n); }, m_data);
}

void Column::resize(size_t n) {
    if (!m_written) {
        if (m_count == 0) m_bits = 0;
        if (n <= m_count || m_bits == 0) {
            m_count = n;
            return;
        }
        writeOut();
    }
    std::visit([n](auto& v) { v.resize(n); }, m_data);
}

void Column::clear() {
    std::visit([](auto& v) { v.clear(); }, m_data);
    m_written = false;
    m_count = 0;
    m_bits = 0;
}

void Column::shrinkToFit() {
    std::visit([](auto& v) { v.shrink_to_fit(); }, m_data);
    if (!m_written) m_reserved = 0;
}

void Column::permute(const std::vector<uint32_t>& order) {
    if (!m_written) {
        m_count = order.size();
        return;
    }
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
            using T = Elem<decltype(v)>;
            if (m_written && !other.uniform()) {
                const auto& src = std::get<std::decay_t<decltype(v)>>(other.m_data);
                v.insert(v.end(), src.begin() + static_cast<ptrdiff_t>(begin),
                         src.begin() + static_cast<ptrdiff_t>(end));
                return;
            }
            const ColumnView<T> src = other.view<T>();
            if (!m_written && other.uniform()) {
                if (begin >= end) return;
                const int64_t bits = other.m_bits;
                if (m_count == 0) m_bits = bits;
                if (bits == m_bits) {
                    m_count += end - begin;
                    return;
                }
            }
            for (size_t i = begin; i < end; ++i) push<T>(src[i]);
        },
        m_data);
}

}  // namespace sl
