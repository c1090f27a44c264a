#include "viewer/timeline/RowTreeBuilder.h"

#include <algorithm>
#include <unordered_set>
#include <map>
#include <set>
#include <variant>
#include <tuple>

#include "viewer/timeline/MetricRow.h"
#include "viewer/timeline/ProjectedNvtxRow.h"
#include "viewer/timeline/TrackRow.h"

namespace sl::viewer {

namespace {

constexpr uint32_t kNoStream = 0xFFFFFFFFu;

// Order of a thread's rows and a stream's rows.
int kindOrder(EventKind k) {
    switch (k) {
        case EventKind::NvtxRange:
            return 0;
        case EventKind::NvtxMark:
            return 1;
        case EventKind::Mpi:  // above CUDA API, as in nsys
            return 2;
        case EventKind::OpenMp:  // with MPI: the program's own parallel structure
            return 3;
        case EventKind::Nccl:  // the libraries above the CUDA API calls they make, as in nsys
            return 4;
        case EventKind::Cudnn:
            return 5;
        case EventKind::Cublas:
            return 6;
        case EventKind::CudaApi:
            return 7;
        case EventKind::OsRuntime:
            return 8;
        case EventKind::ThreadState:
            return 9;
        case EventKind::CuptiOverhead:
            return 10;
        case EventKind::CpuSample:
            return 11;
        case EventKind::Kernel:
            return 0;
        case EventKind::Memcpy:
            return 1;
        case EventKind::Memset:
            return 2;
        case EventKind::Sync:
            return 3;
        case EventKind::GraphTrace:
            return 4;
        default:
            return 12;
    }
}

std::string kindTitle(const Report& r, const Track& t) {
    switch (t.key.kind) {
        case EventKind::OsRuntime:
            return "OS runtime";
        case EventKind::CudaApi:
            return "CUDA API";
        case EventKind::Mpi:
            return "MPI";
        case EventKind::OpenMp:
            return "OpenMP";
        case EventKind::Cublas:
            return "cuBLAS";
        case EventKind::Cudnn:
            return "cuDNN";
        case EventKind::Nccl:
            return "NCCL";
        case EventKind::ThreadState:
            return "Thread state";
        case EventKind::CuptiOverhead:
            return "CUPTI overhead";
        case EventKind::Kernel:
            return "Kernels";
        case EventKind::Memcpy:
            return "Memcpy";
        case EventKind::Memset:
            return "Memset";
        case EventKind::Sync:
            return "Sync";
        case EventKind::GraphTrace:
            return "CUDA graphs";
        case EventKind::NvtxRange:
        case EventKind::NvtxMark: {
            std::string title = t.key.kind == EventKind::NvtxRange ? "NVTX" : "NVTX marks";
            const std::string_view dom = r.domainName(t.key.pid, t.key.domain);
            // The default domain is plain "NVTX", as in nsys.
            if (t.key.domain != 0 && !dom.empty()) title += " (" + std::string(dom) + ")";
            return title;
        }
        default:
            return std::string(t.schema().label);
    }
}

// Synchronization events that wait on no stream (cudaDeviceSynchronize, event syncs) carry
// the stream id of all ones (CUPTI_SYNCHRONIZATION_INVALID_VALUE, kept by nsys), or 0 where
// our capture stored them (CuptiConverter::emitSync) on a stream CUDA never created; the legacy
// default stream reads as in nsys, "Default stream 7".
std::string streamTitle(const Report& r, const TrackKey& k, bool syncOnly) {
    const CudaStream* s = r.findStream(k.pid, k.device, k.context, k.stream);
    if (k.stream == kNoStream || (syncOnly && k.stream == 0 && !s)) return "Synchronization";
    std::string title = (s && s->isDefault ? "Default stream " : "Stream ") + std::to_string(k.stream);
    if (s && !s->name.empty()) title += " (" + s->name + ")";
    return title;
}

std::unique_ptr<Row> group(std::string title) {
    return std::make_unique<Row>(std::move(title), 0);
}

class Builder {
public:
    Builder(const Report& r, ProjectedNvtx* projected)
        : m_r(r), m_projected(projected), m_root(group("")) {}
    std::unique_ptr<Row> run();

private:
    Row* process(int64_t pid);
    Row* thread(int64_t pid, int64_t tid);
    Row* gpu(int32_t device);
    Row* stream(const TrackKey& k);
    std::vector<const Process*> processOrder() const;
    void foldQuietThreads();
    void collapseManyProcesses();
    void placeGpusAfterTheirProcess();
    void groupMergedRanks();

    const Report& m_r;
    ProjectedNvtx* m_projected;
    std::unique_ptr<Row> m_root;
    Row* m_metrics = nullptr;
    std::map<int64_t, Row*> m_processes;
    std::map<std::pair<int64_t, int64_t>, Row*> m_threads;
    std::map<int32_t, Row*> m_gpus;
    std::map<std::tuple<int32_t, int64_t, uint32_t>, Row*> m_contexts;
    std::map<std::tuple<int32_t, int64_t, uint32_t, uint32_t>, Row*> m_streams;
    // Streams with a track other than synchronization (kernels, copies, ...).
    std::set<std::tuple<int32_t, int64_t, uint32_t, uint32_t>> m_streamsWithWork;
};

Row* Builder::process(int64_t pid) {
    if (auto it = m_processes.find(pid); it != m_processes.end()) return it->second;
    std::string title = "Process " + std::to_string(pid);
    const Process* p = m_r.findProcess(pid);
    if (p && !p->name.empty()) title += " (" + p->name + ")";
    // An MPI rank leads, so that a multi-rank report reads rank by rank; in reports opened as
    // one (model/merge) the process already sits in its "Rank N" group, which says it.
    if (p && p->mpiRank >= 0 && m_r.session.source != "merged")
        title = "Rank " + std::to_string(p->mpiRank) + " \u2014 " + title;
    return m_processes[pid] = m_root->addChild(group(title));
}

Row* Builder::thread(int64_t pid, int64_t tid) {
    if (auto it = m_threads.find({pid, tid}); it != m_threads.end()) return it->second;
    std::string title = "Thread " + std::to_string(tid);
    if (const Thread* t = m_r.findThread(pid, tid); t && !t->name.empty())
        title += " (" + t->name + ")";
    return m_threads[{pid, tid}] = process(pid)->addChild(group(title));
}

Row* Builder::gpu(int32_t device) {
    if (auto it = m_gpus.find(device); it != m_gpus.end()) return it->second;
    std::string title = "GPU " + std::to_string(device);
    if (const Gpu* g = m_r.findGpu(device); g && !g->name.empty()) title += " (" + g->name + ")";
    m_gpus[device] = m_root->addChild(group(title));
    m_gpus[device]->setDevice(device);
    return m_gpus[device];
}

Row* Builder::stream(const TrackKey& k) {
    const auto sk = std::make_tuple(k.device, k.pid, k.context, k.stream);
    if (auto it = m_streams.find(sk); it != m_streams.end()) return it->second;
    const auto ck = std::make_tuple(k.device, k.pid, k.context);
    Row*& ctx = m_contexts[ck];
    if (!ctx) {
        std::string title = "Context " + std::to_string(k.context);
        if (m_processes.size() > 1) title += " (pid " + std::to_string(k.pid) + ")";
        ctx = gpu(k.device)->addChild(group(title));
    }
    return m_streams[sk] = ctx->addChild(group(streamTitle(m_r, k, !m_streamsWithWork.count(sk))));
}

// The report's order, except that MPI ranks come by rank: the ranked processes are sorted
// among the places they hold (mpirun and other unranked processes keep theirs).
std::vector<const Process*> Builder::processOrder() const {
    std::vector<const Process*> order;
    std::vector<size_t> slots;
    std::vector<const Process*> ranked;
    for (const Process& p : m_r.processes) {
        if (p.mpiRank >= 0) {
            slots.push_back(order.size());
            ranked.push_back(&p);
        }
        order.push_back(&p);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const Process* a, const Process* b) { return a->mpiRank < b->mpiRank; });
    for (size_t k = 0; k < slots.size(); ++k) order[slots[k]] = ranked[k];
    return order;
}

std::unique_ptr<Row> Builder::run() {
    for (const Process* p : processOrder()) process(p->pid);
    for (const Thread& t : m_r.threads) thread(t.pid, t.tid);
    std::vector<const Track*> tracks;
    for (const Track& t : m_r.tracks) {
        tracks.push_back(&t);
        if (t.schema().owner == OwnerKind::Stream && t.key.kind != EventKind::Sync)
            m_streamsWithWork.insert({t.key.device, t.key.pid, t.key.context, t.key.stream});
    }
    std::stable_sort(tracks.begin(), tracks.end(), [](const Track* a, const Track* b) {
        const TrackKey &x = a->key, &y = b->key;
        return std::tie(x.device, x.pid, x.tid, x.context, x.stream, x.domain) <
                   std::tie(y.device, y.pid, y.tid, y.context, y.stream, y.domain) ||
               (std::tie(x.device, x.pid, x.tid, x.context, x.stream, x.domain) ==
                    std::tie(y.device, y.pid, y.tid, y.context, y.stream, y.domain) &&
                kindOrder(x.kind) < kindOrder(y.kind));
    });
    // Per device: the summary rows come first, before the contexts.
    std::map<int32_t, std::vector<const Track*>> kernels, memops, memory;
    for (const Track* t : tracks) {
        if (t->key.kind == EventKind::Kernel) kernels[t->key.device].push_back(t);
        if (t->key.kind == EventKind::Memcpy || t->key.kind == EventKind::Memset)
            memops[t->key.device].push_back(t);
        if (t->key.kind == EventKind::CudaMemory) memory[t->key.device].push_back(t);
    }
    for (const Gpu& g : m_r.gpus) gpu(g.deviceId);
    for (auto& [d, ts] : kernels) gpu(d);
    for (auto& [d, ts] : memops) gpu(d);
    for (auto& [d, ts] : memory) gpu(d);
    for (auto& [device, row] : m_gpus) {
        if (auto it = kernels.find(device); it != kernels.end())
            row->addChild(std::make_unique<TrackRow>(m_r, "All kernels", it->second, true), true);
        if (auto it = memops.find(device); it != memops.end())
            row->addChild(
                std::make_unique<TrackRow>(m_r, "All memory operations", it->second, true), true);
        if (auto it = memory.find(device); it != memory.end())
            for (const Track* t : it->second)
                row->addChild(std::make_unique<MemoryUsageRow>(
                    *t, "CUDA memory usage (pid " + std::to_string(t->key.pid) + ")"));
    }
    for (const Track* t : tracks) {
        const KindSchema& s = t->schema();
        if (s.owner == OwnerKind::Thread) {
            thread(t->key.pid, t->key.tid)
                ->addChild(
                    std::make_unique<TrackRow>(m_r, kindTitle(m_r, *t), std::vector{t}, false));
        } else if (s.owner == OwnerKind::Stream) {
            stream(t->key)->addChild(
                std::make_unique<TrackRow>(m_r, kindTitle(m_r, *t), std::vector{t}, false));
        } else if (s.owner == OwnerKind::Series) {
            const MetricSeries* ms = m_r.findSeries(t->key.series);
            std::string title = ms ? ms->name : "Metric " + std::to_string(t->key.series);
            Row* parent = nullptr;
            if (ms && ms->deviceId >= 0) {
                parent = gpu(ms->deviceId);
            } else {
                if (!m_metrics) m_metrics = m_root->addChild(group("Metrics"));
                parent = m_metrics;
            }
            parent->addChild(std::make_unique<MetricRow>(m_r, *t, title));
        }
    }
    foldQuietThreads();
    collapseManyProcesses();
    placeGpusAfterTheirProcess();
    if (m_r.session.source == "merged") groupMergedRanks();
    if (m_projected) addProjectedNvtxRows(*m_root, *m_projected);
    return std::move(m_root);
}

// A process's threads with almost nothing on them (a few thread-state or CUPTI overhead
// events: CUDA's and the runtime's helper threads) go into one collapsed "N more threads"
// group at the end of the process, so that the busy threads and the GPU rows after them fit
// on screen. A thread stays out when it has NVTX, CUDA API, MPI, OpenMP, cuBLAS, cuDNN or NCCL rows,
// or kQuietPercent of the process's events or more.
void Builder::foldQuietThreads() {
    constexpr uint64_t kQuietPercent = 2;
    auto quiet = [](const Row& thread, const Row& proc) {
        if (thread.children().empty() || thread.count() * 100 >= proc.count() * kQuietPercent)
            return false;
        for (const auto& c : thread.children()) {
            const auto* tr = dynamic_cast<const TrackRow*>(c.get());
            if (!tr) return false;
            for (const Track* t : tr->tracks())
                if (t->key.kind == EventKind::NvtxRange || t->key.kind == EventKind::NvtxMark ||
                    t->key.kind == EventKind::CudaApi || t->key.kind == EventKind::Mpi ||
                    t->key.kind == EventKind::OpenMp || t->key.kind == EventKind::Cublas ||
                    t->key.kind == EventKind::Cudnn || t->key.kind == EventKind::Nccl)
                    return false;
        }
        return true;
    };
    for (const auto& [pid, proc] : m_processes) {
        std::vector<const Row*> rows;
        for (const auto& c : proc->children())
            if (quiet(*c, *proc)) rows.push_back(c.get());
        if (rows.empty()) continue;
        const size_t n = rows.size();
        auto fold = group(std::to_string(n) + (n == 1 ? " more thread" : " more threads"));
        fold->setFold(true);
        fold->setExpanded(false);
        Row* f = proc->addChild(std::move(fold));
        for (const Row* r : rows) f->addChild(proc->takeChild(r));
    }
}

// A tree of many processes (a build, a pool of workers) starts with every process but the first
// collapsed: one line each, which shows its CPU activity (GroupSummary.h), so the whole tree fits
// on a few screens and the busy ones can be opened.
void Builder::collapseManyProcesses() {
    constexpr size_t kExpandedProcesses = 16;
    if (m_processes.size() <= kExpandedProcesses) return;
    std::unordered_set<const Row*> processes;
    for (const auto& [pid, row] : m_processes) processes.insert(row);
    bool first = true;
    for (const auto& c : m_root->children()) {
        if (!processes.count(c.get())) continue;
        if (!first) c->setExpanded(false);
        first = false;
    }
}

// Each GPU right after the first process that used it (nsys puts them after all processes,
// below the fold when a process has many threads); GPUs no process used keep their place.
void Builder::placeGpusAfterTheirProcess() {
    std::map<int32_t, int64_t> firstUser;  // device -> the earliest process row using it
    std::map<int64_t, size_t> position;
    for (size_t i = 0; i < m_root->children().size(); ++i)
        for (const auto& [pid, row] : m_processes)
            if (row == m_root->children()[i].get()) position[pid] = i;
    auto use = [&](int32_t device, int64_t pid) {
        if (!position.count(pid)) return;
        auto it = firstUser.find(device);
        if (it == firstUser.end() || position[pid] < position[it->second]) firstUser[device] = pid;
    };
    for (const auto& [key, row] : m_contexts) use(std::get<0>(key), std::get<1>(key));
    for (const Track& t : m_r.tracks)
        if (t.key.kind == EventKind::CudaMemory) use(t.key.device, t.key.pid);
    std::vector<const Row*> order;
    for (const auto& c : m_root->children()) {
        const int32_t d = c->device();
        if (d >= 0 && firstUser.count(d)) continue;
        order.push_back(c.get());
        for (const auto& [pid, row] : m_processes) {
            if (row != c.get()) continue;
            for (const auto& [device, user] : firstUser)
                if (user == pid) order.push_back(m_gpus[device]);
        }
    }
    m_root->reorderChildren(order);
}

// Several reports opened as one (model/merge): each rank is one top-level group holding its
// processes and the GPUs placed after them, so the ranks read one by one and fold away whole.
void Builder::groupMergedRanks() {
    constexpr size_t kExpandedRanks = 2;
    std::map<const Row*, int32_t> rankOf;
    for (const auto& [pid, row] : m_processes)
        if (const Process* p = m_r.findProcess(pid); p && p->mpiRank >= 0) rankOf[row] = p->mpiRank;
    std::map<int32_t, std::vector<const Row*>> members;
    std::vector<std::variant<const Row*, int32_t>> order;  // a top-level row or a rank's group
    const Row* current = nullptr;
    int32_t currentRank = -1;
    for (const auto& c : m_root->children()) {
        if (auto it = rankOf.find(c.get()); it != rankOf.end()) {
            currentRank = it->second;
            current = c.get();
            if (!members.count(currentRank)) order.emplace_back(currentRank);
            members[currentRank].push_back(c.get());
        } else if (current && c->device() >= 0) {
            members[currentRank].push_back(c.get());
        } else {
            current = nullptr;
            order.emplace_back(c.get());
        }
    }
    std::vector<const Row*> top;
    bool foldedOthers = false;  // the first rank is open
    for (const auto& entry : order) {
        if (const auto* row = std::get_if<const Row*>(&entry)) {
            top.push_back(*row);
            continue;
        }
        const int32_t rank = std::get<int32_t>(entry);
        auto g = group("Rank " + std::to_string(rank));
        // Many ranks start folded but the first: one row each, to open the ones of interest.
        g->setExpanded(members.size() <= kExpandedRanks || !foldedOthers);
        foldedOthers = true;
        for (const Row* r : members[rank]) g->addChild(m_root->takeChild(r));
        top.push_back(m_root->addChild(std::move(g)));
    }
    m_root->reorderChildren(top);
}

}  // namespace

std::unique_ptr<Row> buildRowTree(const Report& report, ProjectedNvtx* projected) {
    return Builder(report, projected).run();
}

int addProjectedNvtxRows(Row& root, ProjectedNvtx& projected) {
    int added = 0;
    for (const auto& g : root.children()) {
        if (g->device() < 0) {  // a merged report's GPUs sit in their rank's group
            if (!g->children().empty()) added += addProjectedNvtxRows(*g, projected);
            continue;
        }
        size_t at = 0;  // after "All kernels" and "All memory operations"
        while (at < g->children().size() && g->children()[at]->title().rfind("All ", 0) == 0) ++at;
        for (auto& row : projected.takeRows(g->device())) {
            g->insertChild(at++, std::move(row), true);
            ++added;
        }
    }
    return added;
}

}  // namespace sl::viewer
