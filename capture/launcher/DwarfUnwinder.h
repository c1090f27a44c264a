#pragma once
// `-b dwarf`: user stacks of CPU samples unwound from DWARF call-frame information (.eh_frame)
// with elfutils' libdwfl, from what perf copied at the sample (PERF_SAMPLE_REGS_USER: the
// x86-64 general registers; PERF_SAMPLE_STACK_USER: the top of the user stack). The design is
// perf's unwind-libdw, with one difference for speed: one Dwfl per process, kept across its
// samples (libdw caches each module's CFI in it), instead of one per sample. Modules are
// reported to it lazily, the first time an address in them is unwound, from the mappings the
// sampler tracks (ModuleMaps, fed in time order, so a sample sees the mappings of its time);
// exec drops the process's Dwfl. Memory reads are served from the stack copy, else from the
// mapped file. Single-threaded (the sampler's replay).
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "capture/launcher/ModuleMaps.h"

namespace sl::capture {

class DwarfUnwinder {
public:
    // The registers asked of perf, in its sample order: AX BX CX DX SI DI BP SP IP, R8-R15.
    static constexpr uint64_t kPerfRegsMask = 0x1ffULL | (0xffULL << 16);
    static constexpr size_t kRegs = 17;  // DWARF x86-64 numbering: rax rdx rcx rbx rsi rdi
                                         // rbp rsp r8-r15, then 16 = the return address (IP)
    // perf's sample order -> DWARF order.
    static void toDwarf(const uint64_t perf[kRegs], uint64_t dwarf[kRegs]);

    explicit DwarfUnwinder(const ModuleMaps& maps);
    ~DwarfUnwinder();
    DwarfUnwinder(const DwarfUnwinder&) = delete;
    DwarfUnwinder& operator=(const DwarfUnwinder&) = delete;

    // Appends the user stack of thread `tid` of `pid` (leaf first, at most `maxFrames`) to
    // `out`: `regs` in DWARF order, `stack` the bytes copied from regs[7] (rsp) up. True when
    // the unwinding reached the outermost frame; false when it stopped early (no CFI for an
    // address, a read beyond the copy, the depth limit): the frames found so far are kept.
    bool unwind(int64_t pid, int64_t tid, const uint64_t regs[kRegs], const uint8_t* stack,
                size_t stackSize, std::vector<uint64_t>& out, size_t maxFrames);
    // The process exec'd: its modules are gone.
    void exec(int64_t pid);

    struct Process;  // defined in DwarfUnwinder.cpp (the libdwfl callbacks use it)

private:
    Process* processOf(int64_t pid);
    const ModuleMaps& m_maps;
    std::unordered_map<int64_t, std::unique_ptr<Process>> m_processes;
    uint64_t m_uses = 0;
};

}  // namespace sl::capture
