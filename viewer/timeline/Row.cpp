#include "viewer/timeline/Row.h"

#include <algorithm>

#include "viewer/timeline/GroupSummary.h"

namespace sl::viewer {

void Row::build(const RowContext& ctx, DrawList& out) const {
    // An expanded group's rows show its events; a collapsed one sums them up in its own line.
    if (!m_expanded && !m_children.empty()) buildGroupSummary(*this, ctx, out);
}

std::optional<HitInfo> Row::hitTest(const RowContext& ctx, float x, float) const {
    if (m_expanded || m_children.empty()) return std::nullopt;
    return groupSummaryHit(*this, ctx, x);
}

Row* Row::addChild(std::unique_ptr<Row> child, bool summary) {
    child->m_parent = this;
    const uint64_t n = summary ? 0 : child->m_count;
    m_children.push_back(std::move(child));
    addCount(n);
    return m_children.back().get();
}

Row* Row::insertChild(size_t index, std::unique_ptr<Row> child, bool summary) {
    child->m_parent = this;
    const uint64_t n = summary ? 0 : child->m_count;
    index = std::min(index, m_children.size());
    Row* raw = child.get();
    m_children.insert(m_children.begin() + static_cast<ptrdiff_t>(index), std::move(child));
    addCount(n);
    return raw;
}

std::unique_ptr<Row> Row::takeChild(const Row* child) {
    for (auto it = m_children.begin(); it != m_children.end(); ++it) {
        if (it->get() != child) continue;
        std::unique_ptr<Row> out = std::move(*it);
        m_children.erase(it);
        for (Row* r = this; r; r = r->m_parent) r->m_count -= std::min(r->m_count, out->m_count);
        out->m_parent = nullptr;
        return out;
    }
    return nullptr;
}

void Row::reorderChildren(const std::vector<const Row*>& order) {
    std::vector<std::unique_ptr<Row>> sorted;
    sorted.reserve(m_children.size());
    for (const Row* want : order)
        for (auto& c : m_children)
            if (c && c.get() == want) sorted.push_back(std::move(c));
    for (auto& c : m_children)
        if (c) sorted.push_back(std::move(c));
    m_children = std::move(sorted);
}

void Row::addCount(uint64_t n) {
    for (Row* r = this; r; r = r->m_parent) r->m_count += n;
}

Row* Row::find(const std::string& path) {
    if (path.empty()) return this;
    const size_t slash = path.find('/');
    const std::string head = path.substr(0, slash);
    for (const auto& c : m_children) {
        if (c->isFold() && c->title() != head)
            if (Row* r = c->find(path)) return r;
        if (c->title() != head) continue;
        if (slash == std::string::npos) return c.get();
        if (Row* r = c->find(path.substr(slash + 1))) return r;
    }
    return nullptr;
}

}  // namespace sl::viewer
