#include "model/export/ChromeStackFrames.h"

#include <cstdio>

#include "model/util/JsonWriter.h"

namespace sl::exporter {

int64_t ChromeStackFrames::leafNode(uint32_t stack) {
    if (stack >= m_leafOf.size()) return -1;
    if (m_leafOf[stack] != -1 || m_r.callStacks[stack].frames.empty()) return m_leafOf[stack];
    // Frames are stored leaf first; the tree is walked from the outermost frame down.
    const auto& frames = m_r.callStacks[stack].frames;
    int64_t node = -1;
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
        auto [pos, inserted] = m_ids.try_emplace({node, *it}, static_cast<int64_t>(m_nodes.size()));
        if (inserted) m_nodes.push_back({*it, node});
        node = pos->second;
    }
    return m_leafOf[stack] = node;
}

std::string ChromeStackFrames::json() const {
    std::string out = "\"stackFrames\":{";
    for (size_t id = 0; id < m_nodes.size(); ++id) {
        const Node& n = m_nodes[id];
        std::string name, module;
        if (n.frame < m_r.stackFrames.size()) {
            const StackFrame& f = m_r.stackFrames[n.frame];
            module = std::string(m_r.str(f.module));
            if (const auto slash = module.rfind('/'); slash != std::string::npos)
                module.erase(0, slash + 1);
            if (f.function != 0) {
                name = std::string(m_r.str(f.function));
            } else {
                char offset[32];
                std::snprintf(offset, sizeof offset, "+0x%llx",
                              static_cast<unsigned long long>(f.offset));
                name = (module.empty() ? "[unknown]" : module) + offset;
            }
        }
        if (id) out += ',';
        out += "\n\"" + std::to_string(id) + "\":{\"name\":";
        JsonWriter::escape(out, name);
        out += ",\"category\":";
        JsonWriter::escape(out, module.empty() ? "[unknown]" : module);
        if (n.parent >= 0) out += ",\"parent\":\"" + std::to_string(n.parent) + "\"";
        out += '}';
    }
    out += '}';
    return out;
}

}  // namespace sl::exporter
