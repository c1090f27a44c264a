#include "model/export/NsysSampleTables.h"

#include <cstdio>

#include "model/export/TableScope.h"

namespace sl::exporter {
namespace {

// The samples inside the window, in track order, and their ids (1, 2, ... as nsys numbers them).
template <class F>
void forEachSample(const Report& r, const ExportOptions& o, F fn) {
    int64_t id = 0;
    for (const Track* t : r.tracksOfKind(EventKind::CpuSample))
        for (size_t i = 0; i < t->size(); ++i)
            if (o.inWindow(t->start[i], t->start[i])) fn(++id, *t, i);
}

Status compositeEvents(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats,
                       int64_t origin) {
    // nsys: id PRIMARY KEY; threadState is nsys's own sampling state, unknown here (NULL);
    // cpuCycles is NOT NULL in nsys's schema and not measured by us (0).
    static constexpr ColumnDef d[] = {{"id", "INTEGER NOT NULL PRIMARY KEY"},
                                      {"start", "INTEGER NOT NULL"},
                                      {"cpu", "INTEGER"},
                                      {"threadState", "INTEGER"},
                                      {"globalTid", "INTEGER"},
                                      {"cpuCycles", "INTEGER NOT NULL"}};
    TableScope t(sink, stats, "COMPOSITE_EVENTS", d);
    if (!t.open()) return {};
    forEachSample(r, o, [&](int64_t id, const Track& tr, size_t i) {
        const int64_t cpu = tr.intAt(cols::CpuSample::Cpu, i);
        Cell c[] = {Cell::of(id),
                    Cell::of(tr.start[i] - origin),
                    cpu < 0 ? Cell::null() : Cell::of(cpu),
                    Cell::null(),
                    Cell::of(globalTid(tr.key.pid, tr.key.tid)),
                    Cell::of(0)};
        t.row(c);
    });
    return t.finish();
}

// A callchain table as nsys writes them (SAMPLING_CALLCHAINS, OSRT_CALLCHAINS): one row per
// frame of each (id, stack) that forEachChain gives, stackDepth 0 = the leaf.
template <class ForEachChain>
Status callchainTable(const Report& r, const char* table, RowSink& sink, ExportStats& stats,
                      const std::function<uint32_t(const std::string&)>& extraString,
                      ForEachChain forEachChain) {
    // The last column carries nsys's table constraint: (id, stackDepth) is the primary key, which
    // is also what makes "ORDER BY id, stackDepth" (how readers rebuild stacks) an index scan.
    static constexpr ColumnDef d[] = {
        {"id", "INTEGER NOT NULL"},
        {"symbol", "INTEGER NOT NULL"},
        {"module", "INTEGER NOT NULL"},
        {"kernelMode", "INTEGER"},
        {"thumbCode", "INTEGER"},
        {"unresolved", "INTEGER"},
        {"specialEntry", "INTEGER"},
        {"originalIP", "INTEGER"},
        {"unwindMethod", "INTEGER"},
        {"stackDepth", "INTEGER NOT NULL, PRIMARY KEY (id, stackDepth)"}};
    TableScope t(sink, stats, table, d);
    if (!t.open()) return {};
    // nsys names an unresolved frame by its address; one string per distinct frame, made once.
    // originalIP is NULL where nsys has no address (named entries such as "[Broken backtraces]",
    // stored with offset 0); an unresolved frame at address 0 keeps its 0.
    std::vector<int64_t> symbolOf(r.stackFrames.size(), -1);
    auto symbol = [&](uint32_t frame) {
        if (symbolOf[frame] >= 0) return symbolOf[frame];
        const StackFrame& f = r.stackFrames[frame];
        if (f.function != 0) return symbolOf[frame] = f.function;
        char text[24];
        std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(f.offset));
        return symbolOf[frame] = extraString(text);
    };
    forEachChain([&](int64_t id, size_t stack) {
        if (stack >= r.callStacks.size()) return;
        const auto& frames = r.callStacks[stack].frames;
        for (size_t depth = 0; depth < frames.size(); ++depth) {
            const uint32_t fid = frames[depth];
            if (fid >= r.stackFrames.size()) continue;
            const StackFrame& f = r.stackFrames[fid];
            Cell c[] = {Cell::of(id),
                        Cell::of(symbol(fid)),
                        Cell::of(f.module),
                        Cell::null(),
                        Cell::null(),
                        f.function == 0 ? Cell::of(1) : Cell::null(),
                        Cell::null(),
                        f.offset == 0 && f.function != 0 ? Cell::null()
                                                         : Cell::of(static_cast<int64_t>(f.offset)),
                        Cell::null(),
                        Cell::of(static_cast<int64_t>(depth))};
            t.row(c);
        }
    });
    return t.finish();
}

}  // namespace

Status emitSampleTables(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats,
                        int64_t origin,
                        const std::function<uint32_t(const std::string&)>& extraString) {
    if (r.eventCount(EventKind::CpuSample) == 0) return {};
    if (Status s = compositeEvents(r, o, sink, stats, origin); !s) return s;
    return callchainTable(r, "SAMPLING_CALLCHAINS", sink, stats, extraString, [&](auto chain) {
        forEachSample(r, o, [&](int64_t id, const Track& tr, size_t i) {
            chain(id, static_cast<size_t>(tr.intAt(cols::CpuSample::Stack, i)));
        });
    });
}

int64_t callchainIdOf(const Report& r, const Track& t, size_t i) {
    const CallStack* bt = r.backtraceOf(t.key.kind, t.key.pid, t.key.tid, t.start[i]);
    return bt ? static_cast<int64_t>(bt - r.callStacks.data()) + 1 : 0;
}

Status emitBacktraceCallchains(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats,
                               const std::function<uint32_t(const std::string&)>& extraString) {
    // Each distinct stack once per table, id = its call stack index + 1 (callchainIdOf).
    for (const auto& [kind, table] : {std::pair{EventKind::OsRuntime, "OSRT_CALLCHAINS"},
                                      std::pair{EventKind::CudaApi, "CUDA_CALLCHAINS"}}) {
        std::vector<bool> used(r.callStacks.size());
        bool any = false;
        for (const auto& b : r.backtraces)
            if (b.kind == kind && b.stack < used.size() && o.inWindow(b.start, b.start))
                any = used[b.stack] = true;
        if (!any) continue;
        if (Status s = callchainTable(r, table, sink, stats, extraString,
                                      [&](auto chain) {
                                          for (size_t k = 0; k < used.size(); ++k)
                                              if (used[k]) chain(static_cast<int64_t>(k) + 1, k);
                                      });
            !s)
            return s;
    }
    return {};
}

}  // namespace sl::exporter
