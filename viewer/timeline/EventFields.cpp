#include "viewer/timeline/EventFields.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "model/analysis/CudaLibCall.h"
#include "model/analysis/OpenMpConstruct.h"
#include "model/util/Format.h"

namespace sl::viewer {

namespace {

constexpr size_t kTooltipFrames = 12;
constexpr size_t kTooltipFrameChars = 100;

std::string dims(const uint32_t d[3]) {
    return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
           ")";
}

std::string payloadText(PayloadType type, uint64_t bits) {
    char buf[64];
    switch (type) {
        case PayloadType::U64:
        case PayloadType::U32:
            return std::to_string(bits);
        case PayloadType::I64:
        case PayloadType::I32:
            return std::to_string(static_cast<int64_t>(bits));
        case PayloadType::F64:
            std::snprintf(buf, sizeof buf, "%g", std::bit_cast<double>(bits));
            return buf;
        case PayloadType::F32:
            std::snprintf(buf, sizeof buf, "%g",
                          static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits))));
            return buf;
        case PayloadType::None:
            break;
    }
    return {};
}

// The tooltip's call stack: the leaf and its nearest callers, one per line, each cut to a
// readable width (C++ template names run to kilobytes); the details panel lists every frame.
std::string framesText(const Report& r, const std::vector<uint32_t>& frames) {
    std::string out;
    const size_t shown = std::min(frames.size(), kTooltipFrames);
    for (size_t k = 0; k < shown; ++k) {
        std::string f = r.frameText(frames[k]);
        if (f.size() > kTooltipFrameChars) f = f.substr(0, kTooltipFrameChars - 3) + "...";
        out += "\n  " + f;
    }
    if (frames.size() > shown)
        out += "\n  ... " + std::to_string(frames.size() - shown) + " more frames (click: details)";
    if (frames.empty()) out += " (empty)";
    return out;
}

// "4.00 KiB (4,096 bytes)": MPI message sizes are often compared to the exact count sent.
std::string exactBytes(int64_t n) {
    const auto b = static_cast<uint64_t>(n);
    return b < 1024 ? formatBytes(b) : formatBytes(b) + " (" + formatCount(b) + " bytes)";
}

std::string stackText(const Report& r, const Track& t, size_t i) {
    const auto stack = static_cast<uint64_t>(t.intAt(cols::CpuSample::Stack, i));
    if (stack >= r.callStacks.size()) return "[unknown stack " + std::to_string(stack) + "]";
    return framesText(r, r.callStacks[stack].frames);
}

}  // namespace

std::string_view mpiClassLabel(MpiCallClass c) {
    switch (c) {
        case MpiCallClass::P2p:
            return "point-to-point";
        case MpiCallClass::Collective:
            return "collective";
        case MpiCallClass::StartWait:
            return "start/wait";  // MPI_Start*, MPI_Wait*, MPI_Test*
        case MpiCallClass::Other:
            break;
    }
    return "other";
}

std::string eventLabel(const Report& r, const Track& t, size_t i) {
    switch (t.key.kind) {
        case EventKind::Memcpy:
            return std::string(
                       copyKindName(static_cast<CopyKind>(t.intAt(cols::Memcpy::CopyKind, i)))) +
                   " " + formatBytes(static_cast<uint64_t>(t.intAt(cols::Memcpy::Bytes, i)));
        case EventKind::Memset:
            return "Memset " + formatBytes(static_cast<uint64_t>(t.intAt(cols::Memset::Bytes, i)));
        case EventKind::Sync:
            return std::string(
                syncTypeName(static_cast<SyncType>(t.intAt(cols::Sync::SyncType, i))));
        case EventKind::ThreadState:
            return "Running";
        case EventKind::CudaMemory:
            return std::string(t.intAt(cols::CudaMemory::Op, i) == 0 ? "Alloc " : "Free ") +
                   formatBytes(static_cast<uint64_t>(t.intAt(cols::CudaMemory::Bytes, i)));
        case EventKind::CpuSample: {
            // Unresolved leaves have no name: show where they are ("libfoo.so+0x1a").
            if (t.nameAt(i) != 0) break;
            const auto stack = static_cast<uint64_t>(t.intAt(cols::CpuSample::Stack, i));
            if (stack < r.callStacks.size() && !r.callStacks[stack].frames.empty())
                return r.frameText(r.callStacks[stack].frames.front());
            return "[unknown]";
        }
        default:
            break;
    }
    return std::string(r.str(t.nameAt(i)));
}

void describeEvent(const Report& r, const Track& t, size_t i, HitInfo& hit) {
    hit.name = eventLabel(r, t, i);
    auto add = [&hit](std::string k, std::string v) {
        hit.fields.emplace_back(std::move(k), std::move(v));
    };
    add("Kind", std::string(t.schema().label));
    switch (t.key.kind) {
        case EventKind::Kernel: {
            add("Correlation", std::to_string(t.intAt(cols::Kernel::Correlation, i)));
            const auto li = static_cast<size_t>(t.intAt(cols::Kernel::Launch, i));
            if (li < r.kernelLaunches.size()) {
                const KernelLaunchInfo& k = r.kernelLaunches[li];
                add("Grid", dims(k.grid));
                add("Block", dims(k.block));
                add("Registers/thread", std::to_string(k.registersPerThread));
                add("Shared memory", formatBytes(k.staticSharedBytes + k.dynamicSharedBytes));
            }
            break;
        }
        case EventKind::Memcpy: {
            const auto bytes = static_cast<uint64_t>(t.intAt(cols::Memcpy::Bytes, i));
            add("Direction", std::string(copyKindName(
                                 static_cast<CopyKind>(t.intAt(cols::Memcpy::CopyKind, i)))));
            add("Bytes", formatBytes(bytes));
            add("Source", std::string(memoryKindName(
                              static_cast<MemoryKind>(t.intAt(cols::Memcpy::SrcKind, i)))));
            add("Destination", std::string(memoryKindName(
                                   static_cast<MemoryKind>(t.intAt(cols::Memcpy::DstKind, i)))));
            if (t.durationAt(i) > 0) {
                char buf[64];
                std::snprintf(buf, sizeof buf, "%.2f GB/s",
                              static_cast<double>(bytes) / static_cast<double>(t.durationAt(i)));
                add("Throughput", buf);
            }
            add("Correlation", std::to_string(t.intAt(cols::Memcpy::Correlation, i)));
            break;
        }
        case EventKind::Memset:
            add("Bytes", formatBytes(static_cast<uint64_t>(t.intAt(cols::Memset::Bytes, i))));
            add("Value", std::to_string(t.intAt(cols::Memset::Value, i)));
            add("Correlation", std::to_string(t.intAt(cols::Memset::Correlation, i)));
            break;
        case EventKind::CudaApi:
            add("Correlation", std::to_string(t.intAt(cols::CudaApi::Correlation, i)));
            add("API", t.intAt(cols::CudaApi::Api, i) == 0 ? "Runtime" : "Driver");
            add("Result", std::to_string(t.intAt(cols::CudaApi::Result, i)));
            break;
        case EventKind::OsRuntime:
            add("Result", std::to_string(t.intAt(cols::OsRuntime::Result, i)));
            if (t.intAt(cols::OsRuntime::Errno, i) != 0)
                add("errno", std::to_string(t.intAt(cols::OsRuntime::Errno, i)));
            break;
        case EventKind::NvtxRange:
        case EventKind::NvtxMark: {
            if (t.key.device >= 0) {  // projected onto a GPU: only times, name and color are kept
                add("Projected onto", "GPU " + std::to_string(t.key.device));
                break;
            }
            const std::string_view dom = r.domainName(t.key.pid, t.key.domain);
            add("Domain", dom.empty() ? std::string("default") : std::string(dom));
            if (const auto cat = t.intAt(cols::Nvtx::Category, i); cat != 0)
                add("Category", std::to_string(cat));
            const auto pt = static_cast<PayloadType>(t.intAt(cols::Nvtx::PayloadType, i));
            if (pt != PayloadType::None)
                add("Payload",
                    payloadText(pt, static_cast<uint64_t>(t.intAt(cols::Nvtx::Payload, i))));
            break;
        }
        case EventKind::Sync:
            add("Correlation", std::to_string(t.intAt(cols::Sync::Correlation, i)));
            break;
        case EventKind::ThreadState:
            add("CPU", std::to_string(t.intAt(cols::ThreadState::Cpu, i)));
            break;
        case EventKind::Metric:
            add("Value", std::to_string(t.cols[cols::Metric::Value].doubleAt(i)));
            break;
        case EventKind::Mpi: {
            add("Class", std::string(mpiClassLabel(
                             static_cast<MpiCallClass>(t.intAt(cols::Mpi::CallClass, i)))));
            // Only what the call has: -1 is "none" for peer, tag and root; sizes of 0 are left
            // out (a barrier moves no data).
            if (const auto peer = t.intAt(cols::Mpi::Peer, i); peer >= 0)
                add("Peer rank", std::to_string(peer));
            if (const auto tag = t.intAt(cols::Mpi::Tag, i); tag >= 0)
                add("Tag", std::to_string(tag));
            if (const auto root = t.intAt(cols::Mpi::Root, i); root >= 0)
                add("Root rank", std::to_string(root));
            if (const auto sent = t.intAt(cols::Mpi::Bytes, i); sent > 0)
                add("Bytes sent", exactBytes(sent));
            if (const auto got = t.intAt(cols::Mpi::RecvBytes, i); got > 0)
                add("Bytes received", exactBytes(got));
            break;
        }
        case EventKind::OpenMp: {
            // As the Details panel (EventQueryDetails.cpp): what is set, in words.
            const analysis::OpenMpConstruct c = analysis::openMpAt(t, i);
            add("Construct", analysis::openMpConstructText(c));
            if (c.parallelId != 0) add("Parallel region", std::to_string(c.parallelId));
            if (c.taskId != 0)
                add(c.event == OpenMpEvent::Parallel ? "Parent task" : "Task", std::to_string(c.taskId));
            if (const std::string_view label = analysis::openMpCountLabel(c); !label.empty() && c.count > 0)
                add(std::string(label), formatCount(static_cast<uint64_t>(c.count)));
            if (c.index >= 0) add("Thread number", std::to_string(c.index));
            if (c.codePtr != 0) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(c.codePtr));
                add("Code address", buf);
            }
            break;
        }
        case EventKind::Cublas:
        case EventKind::Cudnn:
        case EventKind::Nccl: {
            // The tooltip's share of the Details panel (EventQueryDetails.cpp): status, and for
            // NCCL the operation's size, type and ranks.
            const analysis::CudaLibCall c = analysis::cudaLibCallAt(t, i);
            add("Status", c.status == 0 ? std::string("success") : "error " + std::to_string(c.status));
            if (c.count >= 0) add("Bytes", exactBytes(c.bytes));
            if (const std::string_view dt = analysis::ncclDataTypeName(c.datatype); !dt.empty())
                add("Data type", std::string(dt));
            if (const std::string_view op = analysis::ncclRedOpName(c.redop); !op.empty())
                add("Reduction", std::string(op));
            if (c.peer >= 0) add("Root or peer rank", std::to_string(c.peer));
            if (c.rank >= 0 && c.ranks >= 0)
                add("Rank", std::to_string(c.rank) + " of " + std::to_string(c.ranks));
            break;
        }
        case EventKind::CpuSample: {
            const auto cpu = t.intAt(cols::CpuSample::Cpu, i);
            add("CPU", cpu < 0 ? std::string("unknown") : std::to_string(cpu));
            add("Call stack", stackText(r, t, i));
            break;
        }
        default:
            break;
    }
    // --python-backtrace, --osrt-backtrace-threshold: where the call was made (a native stack
    // may have Python frames spliced in; it is "Backtrace" then).
    if (t.schema().owner == OwnerKind::Thread && t.key.device < 0)
        if (const CallStack* bt = r.backtraceOf(t.key.kind, t.key.pid, t.key.tid, t.start[i]))
            add(r.isPythonFrame(r.stackFrames[bt->frames[0]]) ? "Python backtrace" : "Backtrace",
                framesText(r, bt->frames));
}

}  // namespace sl::viewer
