#pragma once
// A file the injection module keeps open for the life of a process (its stream, its buffer
// arena), at descriptor 1000 or above, away from the numbers programs open, dup2 onto and close
// in bulk. The number is still the program's to take: bash's `exec 1000>log`, a dup2 onto it, or
// a close_range followed by an open that lands there. So every use first checks that the number
// still names our file (fstat: device and inode); a number the program took over is never
// written, never fallocated and never closed, and the file is opened again by its path at
// another number. Raw system calls only (the program's open/close/dup2 are interposed, and this
// runs in signal handlers and forked children). Not thread-safe: callers serialize as before.
#include <cstdint>

namespace sl::capture {

class HeldFile {
public:
    // Takes `fd` (just opened on `path`), moves it to 1000+ and records what it names; a reopen
    // uses `reopenFlags` (O_WRONLY | O_APPEND for a stream written at its end). Returns the
    // descriptor.
    int adopt(long fd, const char* path, int reopenFlags);
    // The descriptor, if it still names our file; else the file opened again (at 1000+), or -1
    // with errno set (the file is gone, or no descriptor is left).
    int use();
    // Whether `fd` is our number and still names our file (the close interposer keeps it open).
    bool owns(int fd) const;
    // Before the program's dup2/dup3 onto `fd`: if that is ours, ours moves to another number
    // first, so the program gets the number it asked for and we keep our file.
    void moveAsideFrom(int fd);
    // Closes the descriptor if it is still ours; forgets it either way.
    void close();
    // Forgets the descriptor without closing it (the descriptor table is shared or not ours).
    void forget() { m_fd = -1; }
    int number() const { return m_fd; }

private:
    bool stillOurs(int fd) const;
    int m_fd = -1;
    int m_flags = 0;
    uint64_t m_dev = 0, m_ino = 0;
    const char* m_path = nullptr;  // owned by the caller, alive as long as this
};

}  // namespace sl::capture
