// CPU samples of an nsys export: COMPOSITE_EVENTS (one row per sample: time, CPU, thread) and
// SAMPLING_CALLCHAINS (one row per frame of a sample's call stack, stackDepth 0 = the sampled
// instruction). Frames and stacks are interned, so a stack seen a million times is stored once.
#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "model/import/NsysSqliteImporter.h"

namespace sl::import {
namespace {

// "0x7fd9a16fe558": the name nsys gives a frame it could not resolve (or no name at all).
bool isAddressText(std::string_view s) {
    if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return s.empty();
    return std::all_of(s.begin() + 2, s.end(),
                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

// The text of a column holding a StringIds id (or, in hand-made files, text).
std::string_view NsysSqliteImporter::symbolText(const sqlite::Stmt& st, int i) const {
    switch (sqlite3_column_type(st.handle(), i)) {
        case SQLITE_INTEGER: {
            const int64_t id = st.i64(i);
            return id >= 0 && static_cast<size_t>(id) < m_rawStrings.size()
                       ? m_rawStrings[static_cast<size_t>(id)]
                       : std::string_view("?");
        }
        case SQLITE_TEXT:
            return st.text(i);
        default:
            return {};
    }
}

Status NsysSqliteImporter::readSamples() {
    const std::string events = "COMPOSITE_EVENTS", chains = "SAMPLING_CALLCHAINS";
    if (!m_db.hasTable(events)) return Status::success();
    // Step 1: every sample's stack, read in (id, depth) order and interned once per sample id.
    // Unresolved frames: nsys names most by their address ("0x7fd9a16fe558"); the model keeps
    // function 0 and the address as the offset, so viewers show "module+0x...". Some rows
    // flagged unresolved carry a symbol nsys guessed ("_init"): nsys shows that name, so do we.
    std::unordered_map<int64_t, uint32_t> stackOf;
    int64_t currentId = INT64_MIN;
    std::vector<uint32_t> frames;
    auto flush = [&] {
        if (currentId != INT64_MIN) stackOf.emplace(currentId, m_b.stackId(frames));
        frames.clear();
    };
    // Stacks are rebuilt by (id, stackDepth); a table without those columns (no nsys version we
    // know of) cannot be read: its samples keep empty stacks, and the user is told.
    const bool readableChains = m_db.hasTable(chains) && NsysColumns(m_db, chains).has("id") &&
                                NsysColumns(m_db, chains).has("stackDepth");
    if (m_db.hasTable(chains) && !readableChains)
        m_b.addDiagnostic(
            "nsys.callchains_unreadable", 1,
            "SAMPLING_CALLCHAINS has no id or stackDepth column: CPU samples were imported "
            "without call stacks");
    if (readableChains) {
        auto st = forEachRow(
            chains, {{"id"}, {"symbol"}, {"module"}, {"originalIP"}},
            [&](const sqlite::Stmt& row) {
                const int64_t id = row.i64(0);
                if (id != currentId) {
                    flush();
                    currentId = id;
                }
                StackFrame f;
                if (!isAddressText(symbolText(row, 1))) f.function = nameAt(row, 1);
                if (f.function == UINT32_MAX) f.function = 0;
                f.module = row.isNull(2) ? m_b.intern("") : nameAt(row, 2);
                if (f.module == UINT32_MAX) f.module = m_b.intern("");
                f.offset = static_cast<uint64_t>(row.i64(3));  // NULL (special entries) reads 0
                frames.push_back(m_b.frameId(f));
            },
            "1 ORDER BY id, stackDepth");
        if (!st) return st;
        flush();
    }
    // Step 2: the samples, each an instant on its thread named by its leaf function.
    int64_t withoutStack = 0;
    uint32_t emptyStack = UINT32_MAX;
    auto st = forEachRow(
        events, {{"id"}, {"start"}, {"cpu"}, {"globalTid"}}, [&](const sqlite::Stmt& row) {
            CpuSampleEvent e;
            const int64_t g = row.i64(3);
            e.pid = pidOf(g);
            e.tid = tidOf(g);
            e.time = row.i64(1);
            e.cpu = row.isNull(2) ? int16_t{-1} : static_cast<int16_t>(row.i64(2));
            if (auto it = stackOf.find(row.i64(0)); it != stackOf.end()) {
                e.stack = it->second;
            } else {
                ++withoutStack;
                if (emptyStack == UINT32_MAX) emptyStack = m_b.stackId({});
                e.stack = emptyStack;
            }
            const auto& stack = m_b.report().callStacks[e.stack].frames;
            e.name = stack.empty() ? 0 : m_b.report().stackFrames[stack.front()].function;
            m_b.add(e);
            noteThread(g);
            noteEnd(e.time);
        });
    if (withoutStack)
        m_b.addDiagnostic("nsys.samples_without_callchain", withoutStack,
                          "CPU samples with no SAMPLING_CALLCHAINS rows were imported with an "
                          "empty call stack");
    return st;
}

}  // namespace sl::import
