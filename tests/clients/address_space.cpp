// Test client: what a program under an address-space limit (RLIMIT_AS) can still do.
//   address_space [MIB]   with MIB, lowers its own limit to MIB MiB first (setrlimit); then
//                         starts a thread (exits 3 when it cannot) and prints how many MiB it
//                         could allocate in 1 MiB blocks
#include <pthread.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>

namespace {
void* idle(void*) {
    return nullptr;
}
}  // namespace

int main(int argc, char** argv) {
    if (argc > 1) {
        const rlimit limit{static_cast<rlim_t>(std::atoll(argv[1])) << 20, RLIM_INFINITY};
        if (setrlimit(RLIMIT_AS, &limit) != 0) return 2;
    }
    pthread_t t;
    if (pthread_create(&t, nullptr, idle, nullptr) != 0) return 3;
    pthread_join(t, nullptr);
    long mib = 0;
    while (std::malloc(1 << 20)) ++mib;
    std::printf("%ld\n", mib);
    return 0;
}
