#pragma once
// A file the injection module keeps open for the life of a process (its stream, its buffer
// arena), at a high descriptor number (1000, or just under a smaller descriptor limit), away from
// the numbers programs open, dup2 onto and close in bulk. The number is still the program's to
// take: bash's `exec 1000>log`, a dup2 onto it, or a close_range followed by an open that lands
// there. So every use first checks that the number still names our file (fstat: device and
// inode); a number the program took over is never written, never fallocated and never closed,
// and the file is opened again by its path at another number. Raw system calls only (the
// program's open/close/dup2 are interposed, and this runs in signal handlers and forked
// children). Not thread-safe: callers serialize as before.
#include <atomic>
#include <climits>
#include <cstdint>

struct stat;

namespace sl::capture {

// No HeldFile of this module was ever below this number: the interposers' quick test (most
// descriptors a program passes are far below it).
inline std::atomic<int> g_lowestHeldEver{INT_MAX};

class HeldFile {
public:
    // Takes `fd` (just opened on `path`), moves it to a high number and records what it names;
    // a reopen uses `reopenFlags` (O_WRONLY | O_APPEND for a stream written at its end).
    // Returns the descriptor.
    int adopt(long fd, const char* path, int reopenFlags);
    // Whether the file was made (adopt) and not closed or forgotten since: its descriptor may
    // still have to be opened again (use()).
    bool made() const { return m_made; }
    // The descriptor, if it still names our file; else the file opened again (at a high
    // number), or -1 with errno set (the file is gone, or no descriptor is left).
    int use();
    // Whether `fd` is our number and still names our file (the interposers hide it).
    bool owns(int fd) const;
    // Before the program's dup2/dup3 onto `fd`: if that is ours, ours moves to another number
    // first, so the program gets the number it asked for and we keep our file.
    void moveAsideFrom(int fd);
    // Gives the descriptor back (closed if still ours) but keeps the file made: the next use()
    // opens it again. For a process out of descriptors that needs one for another file.
    void releaseDescriptor();
    // Closes the descriptor if it is still ours; the file is no longer made.
    void close();
    // Forgets the descriptor without closing it (the descriptor table is shared or not ours).
    void forget() {
        m_fd = -1;
        m_made = false;
    }
    int number() const { return m_fd; }

private:
    bool stillOurs(int fd) const;
    bool names(const struct stat& st) const;  // the file we made
    int m_fd = -1;
    int m_flags = 0;
    bool m_made = false;
    uint64_t m_dev = 0, m_ino = 0;
    const char* m_path = nullptr;  // owned by the caller, alive as long as this
};

// The lowest number the module's files are moved to: 1000, or 8 under a smaller descriptor
// limit (`ulimit -n 64`: 56), or its top two numbers under one below 24, so that the program's
// own numbering from 3 is left alone.
int lowestHeldNumber();

}  // namespace sl::capture
