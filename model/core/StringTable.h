#pragma once
// Interned strings of a report. Id 0 is the empty string. Views returned by get() stay valid
// for the table's lifetime (strings live in stable blocks). The lookup index is built on
// first use, so loading a report does not pay for hashing every string.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sl {

class StringTable {
public:
    StringTable();
    StringTable(StringTable&& other) noexcept;
    StringTable& operator=(StringTable&& other) noexcept;

    uint32_t intern(std::string_view s);
    std::string_view get(uint32_t id) const { return id < m_views.size() ? m_views[id] : std::string_view{}; }
    std::optional<uint32_t> find(std::string_view s) const;
    size_t size() const { return m_views.size(); }
    size_t memoryBytes() const;
    // Appends without deduplication, for the reader (ids must match the file's).
    void appendRaw(std::string_view s);

private:
    std::string_view store(std::string_view s);
    void ensureIndex() const;

    std::vector<std::unique_ptr<char[]>> m_blocks;
    size_t m_blockUsed = 0;
    size_t m_blockSize = 0;
    std::vector<std::string_view> m_views;
    mutable std::unordered_map<std::string_view, uint32_t> m_index;
    mutable size_t m_indexed = 0;  // m_views[0, m_indexed) are in m_index
    mutable std::mutex m_indexMutex;
};

}  // namespace sl
