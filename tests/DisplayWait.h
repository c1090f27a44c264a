#pragma once
// GUI test programs start by opening the X display; under ctest -j2 and one Xvfb, a connection
// was refused now and then ("qt.qpa.xcb: could not connect to display :99"), and Qt aborted
// the test before it ran. The display is tried first here (libxcb, loaded at run time), again
// every 100 ms for up to 10 s, so that a busy server delays a test instead of failing it.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace sl::test {

inline void waitForDisplay() {
    const char* display = std::getenv("DISPLAY");
    if (!display || !*display) return;
    void* xcb = dlopen("libxcb.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!xcb) return;  // Qt will say what is missing
    using Connect = void* (*)(const char*, int*);
    using HasError = int (*)(void*);
    using Disconnect = void (*)(void*);
    auto connect = reinterpret_cast<Connect>(dlsym(xcb, "xcb_connect"));
    auto hasError = reinterpret_cast<HasError>(dlsym(xcb, "xcb_connection_has_error"));
    auto disconnect = reinterpret_cast<Disconnect>(dlsym(xcb, "xcb_disconnect"));
    if (connect && hasError && disconnect) {
        for (int attempt = 0; attempt < 100; ++attempt) {
            void* c = connect(nullptr, nullptr);
            const bool ok = c && hasError(c) == 0;
            if (c) disconnect(c);
            if (ok) break;
            if (attempt == 0) std::fprintf(stderr, "waiting for the display %s\n", display);
            usleep(100000);
        }
    }
    dlclose(xcb);
}

}  // namespace sl::test
