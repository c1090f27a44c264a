// Test client: OS runtime calls that never return (issue #15).
//   blocked_calls exit    one worker blocks in read() on a pipe nobody writes, another in
//                         pthread_mutex_lock on a mutex the main thread holds; the main thread
//                         sleeps 200 ms, then exit(0) ends the process with both still blocked
//   blocked_calls cancel  a thread in sleep(10) is cancelled after 100 ms and joined; exit 0
#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace {

int g_pipe[2];
pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

void* reader(void*) {
    char byte;
    [[maybe_unused]] ssize_t n = read(g_pipe[0], &byte, 1);
    return nullptr;
}

void* locker(void*) {
    pthread_mutex_lock(&g_mutex);
    return nullptr;
}

void* sleeper(void*) {
    sleep(10);
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "";
    pthread_t a, b;
    if (!std::strcmp(mode, "exit")) {
        if (pipe(g_pipe) != 0) return 1;
        pthread_mutex_lock(&g_mutex);
        pthread_create(&a, nullptr, reader, nullptr);
        pthread_create(&b, nullptr, locker, nullptr);
        usleep(200'000);
        std::exit(0);
    }
    if (!std::strcmp(mode, "cancel")) {
        pthread_create(&a, nullptr, sleeper, nullptr);
        usleep(100'000);
        pthread_cancel(a);
        pthread_join(a, nullptr);
        return 0;
    }
    return 1;
}
