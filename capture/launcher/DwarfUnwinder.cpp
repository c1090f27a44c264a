#include "capture/launcher/DwarfUnwinder.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <string>
#include <unordered_set>

namespace sl::capture {
namespace {

// Processes whose Dwfl is kept: a tree of many short-lived processes (a build) would otherwise
// keep every one's modules open.
constexpr size_t kMaxProcesses = 64;
// Addresses this far above the stack pointer are taken as the stack (the default stack limit).
constexpr uint64_t kStackReach = uint64_t{8} << 20;

// CFI is read from the mapped files' .eh_frame (always there on x86-64: exceptions need it).
// Separate debug files are not searched: that would be a file-system (or, with
// DEBUGINFOD_URLS set, a network) search per module in the middle of a capture.
int noSeparateDebuginfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*,
                        GElf_Word, char**) {
    return -1;
}

char* g_debuginfoPath = nullptr;
const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = noSeparateDebuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &g_debuginfoPath,
};

}  // namespace

struct DwarfUnwinder::Process {
    // Which mapping a reported Dwfl_Module stands for (its userdata), to notice when the
    // address range now holds another file (dlclose + dlopen).
    struct Tag {
        uint32_t module;
        uint64_t base;
    };

    const ModuleMaps* maps = nullptr;
    int64_t pid = 0;
    Dwfl* dwfl = nullptr;
    bool attached = false;
    bool stale = false;  // a reported module no longer matches the mappings: start again
    uint64_t lastUse = 0;
    std::deque<Tag> tags;
    std::unordered_set<uint32_t> unreportable;  // modules libdwfl could not open
    std::unordered_map<uint32_t, int> fds;      // module -> fd for memory reads (-1: none)
    // The sample being unwound.
    const uint64_t* regs = nullptr;
    const uint8_t* stack = nullptr;
    size_t stackSize = 0;
    std::vector<uint64_t>* out = nullptr;
    size_t maxFrames = 0;
    // libdwfl ends a stack quietly (as at the outermost frame) when the return address cannot
    // be read: a read of the stack beyond the copy means the unwinding stopped early. (Reads
    // elsewhere that fail are of registers the caller does not need, from garbage values.)
    bool beyondCopy = false;

    ~Process() {
        if (dwfl) dwfl_end(dwfl);
        for (const auto& [module, fd] : fds)
            if (fd >= 0) close(fd);
    }

    // Makes sure the module mapped at `address` is reported; false when there is none to report
    // (no mapping, a pseudo module such as [vdso] or JIT code, an unreadable file).
    bool report(uint64_t address) {
        const ModuleMaps::Location l = maps->lookup(pid, address);
        if (l.module >= maps->modules().size()) return false;
        // perf's base: the mapping's start minus its file offset (libdwfl adds the segments'
        // addresses; an ET_EXEC file ignores it).
        const uint64_t base = address - l.offset;
        if (Dwfl_Module* m = dwfl_addrmodule(dwfl, address)) {
            void** userdata = nullptr;
            dwfl_module_info(m, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
            const auto* tag = userdata ? static_cast<const Tag*>(*userdata) : nullptr;
            if (tag && tag->module == l.module && tag->base == base) return true;
            stale = true;
            return false;
        }
        if (unreportable.count(l.module)) return false;
        const std::string& path = maps->modules()[l.module];
        if (path.empty() || path[0] != '/') {  // [vdso], [stack], //anon
            unreportable.insert(l.module);
            return false;
        }
        dwfl_report_begin_add(dwfl);
        Dwfl_Module* m = dwfl_report_elf(dwfl, path.c_str(), path.c_str(), -1, base, false);
        dwfl_report_end(dwfl, nullptr, nullptr);
        if (!m) {
            unreportable.insert(l.module);
            return false;
        }
        void** userdata = nullptr;
        dwfl_module_info(m, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
        tags.push_back({l.module, base});
        if (userdata) *userdata = &tags.back();
        return true;
    }

    bool read(uint64_t address, uint64_t* result) {
        // The stack copy first: almost every read is a saved register or return address.
        const uint64_t sp = regs[7];
        if (address >= sp && address - sp <= stackSize && stackSize - (address - sp) >= 8) {
            std::memcpy(result, stack + (address - sp), 8);
            return true;
        }
        if (address >= sp && address - sp < kStackReach) {
            beyondCopy = true;
            return false;
        }
        const ModuleMaps::Location l = maps->lookup(pid, address);
        if (l.module >= maps->modules().size()) return false;
        auto [it, isNew] = fds.try_emplace(l.module, -1);
        if (isNew) it->second = open(maps->modules()[l.module].c_str(), O_RDONLY | O_CLOEXEC);
        return it->second >= 0 &&
               pread(it->second, result, 8, static_cast<off_t>(l.offset)) == 8;
    }
};

namespace {

using Process = DwarfUnwinder::Process;

pid_t noThreadList(Dwfl*, void*, void**) {
    return 0;  // threads are asked for by id (getThread)
}

bool getThread(Dwfl*, pid_t, void* processArg, void** threadArg) {
    *threadArg = processArg;
    return true;
}

bool memoryRead(Dwfl*, Dwarf_Addr address, Dwarf_Word* result, void* processArg) {
    return static_cast<Process*>(processArg)->read(address, result);
}

bool setInitialRegisters(Dwfl_Thread* thread, void* threadArg) {
    const auto* p = static_cast<const Process*>(threadArg);
    return dwfl_thread_state_registers(thread, 0, DwarfUnwinder::kRegs, p->regs);
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {
    .next_thread = noThreadList,
    .get_thread = getThread,
    .memory_read = memoryRead,
    .set_initial_registers = setInitialRegisters,
    .detach = nullptr,
    .thread_detach = nullptr,
};

int onFrame(Dwfl_Frame* frame, void* arg) {
    auto* p = static_cast<Process*>(arg);
    Dwarf_Addr pc = 0;
    bool activation = false;
    if (!dwfl_frame_pc(frame, &pc, &activation)) return DWARF_CB_ABORT;
    p->out->push_back(pc);
    if (p->out->size() >= p->maxFrames) return DWARF_CB_ABORT;
    // The caller's frame is found with the CFI of this pc's module (of the call instruction,
    // before the return address, for every frame but the interrupted one).
    p->report(activation ? pc : pc - 1);
    return p->stale ? DWARF_CB_ABORT : DWARF_CB_OK;
}

// libdwfl takes the machine (the register layout) from an ELF file: the profiler's own, which
// is x86-64 like the samples it unwinds (CpuSampler only unwinds 64-bit user registers).
Elf* ownElf() {
    static Elf* elf = [] {
        elf_version(EV_CURRENT);
        const int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        return fd < 0 ? nullptr : elf_begin(fd, ELF_C_READ_MMAP, nullptr);
    }();
    return elf;
}

}  // namespace

void DwarfUnwinder::toDwarf(const uint64_t perf[kRegs], uint64_t dwarf[kRegs]) {
    // perf: AX BX CX DX SI DI BP SP IP R8..R15; DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip
    static constexpr int kFromPerf[kRegs] = {0, 3, 2, 1, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 8};
    for (size_t i = 0; i < kRegs; ++i) dwarf[i] = perf[kFromPerf[i]];
}

DwarfUnwinder::DwarfUnwinder(const ModuleMaps& maps) : m_maps(maps) {}
DwarfUnwinder::~DwarfUnwinder() = default;

DwarfUnwinder::Process* DwarfUnwinder::processOf(int64_t pid) {
    auto it = m_processes.find(pid);
    if (it == m_processes.end()) {
        if (m_processes.size() >= kMaxProcesses) {
            auto oldest = m_processes.begin();
            for (auto i = m_processes.begin(); i != m_processes.end(); ++i)
                if (i->second->lastUse < oldest->second->lastUse) oldest = i;
            m_processes.erase(oldest);
        }
        auto p = std::make_unique<Process>();
        p->maps = &m_maps;
        p->pid = pid;
        p->dwfl = dwfl_begin(&kOfflineCallbacks);
        it = m_processes.emplace(pid, std::move(p)).first;
    }
    it->second->lastUse = ++m_uses;
    return it->second.get();
}

void DwarfUnwinder::exec(int64_t pid) {
    m_processes.erase(pid);
}

bool DwarfUnwinder::unwind(int64_t pid, int64_t tid, const uint64_t regs[kRegs],
                           const uint8_t* stack, size_t stackSize, std::vector<uint64_t>& out,
                           size_t maxFrames) {
    const size_t first = out.size();
    for (int attempt = 0; attempt < 2; ++attempt) {
        Process* p = processOf(pid);
        if (!p->dwfl) break;
        p->regs = regs;
        p->stack = stack;
        p->stackSize = stackSize;
        p->out = &out;
        p->maxFrames = first + maxFrames;
        p->beyondCopy = false;
        p->report(regs[16]);
        if (!p->attached) {
            if (!ownElf() || !dwfl_attach_state(p->dwfl, ownElf(), static_cast<pid_t>(pid),
                                                &kThreadCallbacks, p))
                break;
            p->attached = true;
        }
        const int rc = p->stale ? -1 : dwfl_getthread_frames(p->dwfl, static_cast<pid_t>(tid), onFrame, p);
        if (p->stale) {  // the mappings changed under a reported module: a fresh Dwfl
            m_processes.erase(pid);
            out.resize(first);
            continue;
        }
        if (out.size() == first) out.push_back(regs[16]);
        return rc == 0 && !p->beyondCopy;
    }
    if (out.size() == first) out.push_back(regs[16]);  // at least the sampled address
    return false;
}

}  // namespace sl::capture
