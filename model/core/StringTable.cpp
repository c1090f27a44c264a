#include "model/core/StringTable.h"

#include <cstring>

#include "model/util/Utf8.h"

namespace sl {

namespace {
constexpr size_t kBlockBytes = 1 << 20;
}

StringTable::StringTable() { m_views.push_back({}); }

StringTable::StringTable(StringTable&& other) noexcept { *this = std::move(other); }

StringTable& StringTable::operator=(StringTable&& other) noexcept {
    std::scoped_lock lock(m_indexMutex, other.m_indexMutex);
    m_blocks = std::move(other.m_blocks);
    m_blockUsed = other.m_blockUsed;
    m_blockSize = other.m_blockSize;
    m_views = std::move(other.m_views);
    m_index = std::move(other.m_index);
    m_indexed = other.m_indexed;
    other.m_views.assign(1, {});
    other.m_indexed = 0;
    other.m_blockUsed = other.m_blockSize = 0;
    return *this;
}

std::string_view StringTable::store(std::string_view s) {
    if (s.empty()) return {};
    if (s.size() > kBlockBytes / 4) {  // huge strings get a block of their own
        m_blocks.push_back(std::make_unique<char[]>(s.size()));
        std::memcpy(m_blocks.back().get(), s.data(), s.size());
        std::string_view v(m_blocks.back().get(), s.size());
        // keep the current small-string block as the last one
        if (m_blocks.size() >= 2) std::swap(m_blocks[m_blocks.size() - 1], m_blocks[m_blocks.size() - 2]);
        return v;
    }
    if (m_blocks.empty() || m_blockUsed + s.size() > m_blockSize) {
        m_blocks.push_back(std::make_unique<char[]>(kBlockBytes));
        m_blockSize = kBlockBytes;
        m_blockUsed = 0;
    }
    char* p = m_blocks.back().get() + m_blockUsed;
    std::memcpy(p, s.data(), s.size());
    m_blockUsed += s.size();
    return {p, s.size()};
}

void StringTable::ensureIndex() const {
    std::lock_guard lock(m_indexMutex);
    for (; m_indexed < m_views.size(); ++m_indexed)
        m_index.emplace(m_views[m_indexed], static_cast<uint32_t>(m_indexed));
}

uint32_t StringTable::intern(std::string_view s) {
    if (s.empty()) return 0;
    ensureIndex();
    auto it = m_index.find(s);
    if (it != m_index.end()) return it->second;
    // A new string: every string of a report is valid UTF-8, whoever made it (a program's NVTX
    // text, an import), so that every export and view shows the same text (SQLite and CSV took
    // the bytes as they were, JSON and the text summary U+FFFD).
    if (!isValidUtf8(s)) return intern(sanitizeUtf8(s));
    std::string_view v = store(s);
    auto id = static_cast<uint32_t>(m_views.size());
    m_views.push_back(v);
    m_index.emplace(v, id);
    m_indexed = m_views.size();
    return id;
}

void StringTable::appendRaw(std::string_view s) { m_views.push_back(store(s)); }

std::optional<uint32_t> StringTable::find(std::string_view s) const {
    if (s.empty()) return 0u;
    ensureIndex();
    auto it = m_index.find(s);
    if (it == m_index.end()) return std::nullopt;
    return it->second;
}

size_t StringTable::memoryBytes() const {
    size_t bytes = m_views.capacity() * sizeof(std::string_view) + m_blocks.size() * kBlockBytes;
    return bytes + m_index.size() * (sizeof(std::string_view) + 16);
}

}  // namespace sl
