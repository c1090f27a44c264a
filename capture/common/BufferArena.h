#pragma once
// The in-process side of a stream's buffer arena (RawFormat.h, ArenaHeader): thread buffers
// carved from one file mapped MAP_SHARED, so what a thread committed is in the page cache, not
// only in the process, and outlives a SIGKILL. Slots are backed (fallocate) before they are
// written, their first pages when taken and the rest as they fill, so a full tmpfs or disk shows
// as "no slot" or "no more room in this slot" (the writer then uses heap memory), never as
// SIGBUS in the program. Not thread-safe: ProcessWriter calls it under its pool lock (back() excepted). Raw syscalls only
// (no interposed libc call, async-signal-safe where noted).
#include <cstdint>

#include "capture/common/HeldFile.h"

namespace sl::capture {

class BufferArena {
public:
    // Creates and maps <dir>/<stem>.slbuf with room for `budgetBytes` of buffers of
    // `bufferBytes` each (less under a file-size limit, whose SIGXFSZ a longer file would
    // raise). On failure returns false with errno set; the arena is then unused.
    bool open(const char* dir, const char* stem, uint32_t bufferBytes, int64_t budgetBytes,
              int64_t pid);
    // Taking a slot is two steps, so that the caller's lock is not held while the kernel backs
    // and zeroes the slot's pages: reserve() picks an index (under the caller's lock), back()
    // backs its first `bytes` (a multiple of the page size; without the lock) and returns its
    // address (an ArenaSlotHeader, then the records) or nullptr, after which the index goes
    // back with unreserve() (under the lock).
    bool reserve(uint32_t* index);
    void* back(uint32_t index, uint32_t bytes);
    // Backs bytes [from, to) of a slot (page multiples) that back() or an earlier grow() backed
    // up to `from`: false when its file system has no room (nothing is written past `from`).
    bool grow(uint32_t index, uint32_t from, uint32_t to);
    void unreserve(uint32_t index);
    // The program lowered its address-space limit (AddressSpaceLimit.h): the mapping gives up
    // the slots never taken past `maxMapBytes` (those taken stay). Under the caller's lock.
    // Returns the bytes of address space given back.
    uint64_t shrinkTo(uint64_t maxMapBytes);
    // Bytes of address space the arena maps (0: none).
    uint64_t mappedBytes() const { return m_base ? m_mapBytes : 0; }
    // Bytes of one slot (its header included), a multiple of the page size.
    uint32_t slotBytes() const { return m_slotBytes; }
    // A slot not needed soon: its memory goes back to the system (the file keeps a hole).
    void release(uint32_t slot);
    // A block the stream could not take (errno `err`), counted in the header for the launcher.
    void noteWriteFailure(int err, uint64_t bytes);
    // The final flush is done: remove the file (the mapping stays valid) unless a write failed,
    // which the launcher must still learn about. Async-signal-safe.
    void finished();
    // A block had no stream to go to (its creation was cut short): the file stays for the
    // launcher, which makes the stream from it. Async-signal-safe.
    void keepForLauncher() { m_keep = true; }
    // Unmaps without touching the file: in a forked child (the parent owns it), or after a
    // failed exec once its buffers are no longer referenced. `closeFd` false: the descriptor
    // table is the parent's too (clone with CLONE_FILES), so its descriptor stays open.
    // `keepAddresses`: the range is replaced by private memory instead, for a record the
    // child's thread is still writing there (forked by a signal handler inside it); what it
    // writes is the child's alone, never the parent's buffer.
    void forget(bool closeFd = true, bool keepAddresses = false);
    const char* path() const { return m_path; }
    // Whether `fd` is the arena's descriptor (still naming its file).
    bool owns(int fd) const { return m_file.owns(fd); }
    // Before the program's dup2 onto `fd`: ours moves out of its way.
    void moveAsideFrom(int fd) { m_file.moveAsideFrom(fd); }
    // The process is out of descriptors: the arena's is given back (the mapping stays) and
    // opened again when next needed.
    void releaseDescriptor() { m_file.releaseDescriptor(); }
    int number() const { return m_file.number(); }

private:
    uint8_t* m_base = nullptr;
    uint64_t m_mapBytes = 0;
    uint32_t m_slotBytes = 0, m_slotCount = 0, m_nextFresh = 0;
    uint32_t m_cold[4096] = {};  // released slots (their pages returned), reused before fresh ones
    uint32_t m_coldCount = 0;
    HeldFile m_file;  // at 1000+, checked before each use
    bool m_linked = false;
    bool m_keep = false;
    char m_path[1100] = {};
};

}  // namespace sl::capture
