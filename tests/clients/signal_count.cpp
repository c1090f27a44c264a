// Test client: counts the deliveries of one signal to a handler of its own, in itself and in
// CHILDREN forked children, for SECONDS, and prints "<SIG> counts: <parent> <child>...".
// Exits with the highest count (99: its handler did not read back as it set it).
//   signal_count SIGNUM SECONDS [CHILDREN] [sigaction|signal|oneshot|siginfo-dfl|siginfo-ign|race|vfork-oneshot|supervisor|teller|sigwait|notified]
// sigaction: SA_SIGINFO handler; signal: signal(2)'s plain handler; oneshot: SA_RESETHAND (the
// second delivery ends the process by the default action; after the first, sigaction must
// read back SIG_DFL with the flags kept: 98 otherwise).
// siginfo-dfl / siginfo-ign: the SA_SIGINFO struct reused with SIG_DFL / SIG_IGN, then the
// signal raised: the default ends the process, the ignored one does nothing (exit 0).
// race: a thread switches between the handler and SIG_IGN while the main thread raises it, for
// SECONDS (exit 0: no crash). vfork-oneshot: a vfork child has its SA_RESETHAND handler run;
// the parent's stays (exit 1: the parent's own delivery ran it).
// teller: a supervisor that, on the signal, tells its one worker to save with SIGUSR1 and ends at
// once; the worker runs with SIGUSR1 and the signal blocked in 200 ms critical sections, saves
// for SECONDS, prints "worker saved" and exits 0.
// notified: a child sends the signal to this process every 20 ms for SECONDS; only the copies
// from others are counted: "<SIG> outside: N".
// sigwait: no handler; the signal is blocked and taken with sigtimedwait (a server's signal
// thread), in each process.
// supervisor: CHILDREN workers keep the default disposition and wait for their supervisor
// (this process) to tell them to finish, which it does when it has the signal (or after
// SECONDS): it prints "supervisor: workers <exit code or sN for a signal>..." and exits 0 when
// each worker finished its job (exit 0), 1 when one was killed.
// Why: a signal sent to the whole process group from outside reached the program's handler
// twice under the profiler (once from the sender, once sent on by the profiler).
#include <signal.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

volatile sig_atomic_t g_count = 0;
void plainHandler(int) { g_count = g_count + 1; }
void infoHandler(int, siginfo_t*, void*) { g_count = g_count + 1; }

bool install(int sig, const std::string& how) {
    struct sigaction sa {}, back {};
    sigemptyset(&sa.sa_mask);
    if (how == "signal") {
        if (signal(sig, plainHandler) == SIG_ERR) return false;
        sigaction(sig, nullptr, &back);
        return back.sa_handler == plainHandler && !(back.sa_flags & SA_SIGINFO);
    }
    if (how == "oneshot") {
        sa.sa_handler = plainHandler;
        sa.sa_flags = SA_RESETHAND;
        sigfillset(&sa.sa_mask);  // read back without SIGKILL and SIGSTOP, which the kernel drops
    } else {
        sa.sa_sigaction = infoHandler;
        sa.sa_flags = SA_SIGINFO;
    }
    if (sigaction(sig, &sa, nullptr) != 0) return false;
    sigaction(sig, nullptr, &back);
    // 0x04000000: the kernel's SA_RESTORER, which glibc adds and reports back (under the
    // profiler too: its view of the disposition lacked it).
#if defined(__x86_64__)
    if (!(back.sa_flags & 0x04000000)) return false;
#endif
    const bool maskAsTheKernels = how != "oneshot" || (sigismember(&back.sa_mask, SIGINT) == 1 &&
                                                      sigismember(&back.sa_mask, SIGKILL) == 0 &&
                                                      sigismember(&back.sa_mask, SIGSTOP) == 0);
    return maskAsTheKernels && (back.sa_flags & ~0x04000000) == sa.sa_flags &&
           (how == "oneshot" ? back.sa_handler == plainHandler : back.sa_sigaction == infoHandler);
}

// sigwait mode: the signal blocked in every process, taken by waiting for it.
bool g_waitForIt = false;
sigset_t g_waited;

// CLOCK_MONOTONIC `seconds` from now.
struct timespec deadlineIn(double seconds) {
    struct timespec end {};
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += static_cast<time_t>(seconds);
    end.tv_nsec += static_cast<long>((seconds - static_cast<double>(static_cast<time_t>(seconds))) * 1e9);
    if (end.tv_nsec >= 1000000000L) {
        end.tv_sec += 1;
        end.tv_nsec -= 1000000000L;
    }
    return end;
}

void waitCounting(double seconds) {
    const struct timespec end = deadlineIn(seconds);
    struct timespec now {};
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long left = (end.tv_sec - now.tv_sec) * 1000000000LL + (end.tv_nsec - now.tv_nsec);
        if (left <= 0) return;
        struct timespec timeout {static_cast<time_t>(left / 1000000000LL), static_cast<long>(left % 1000000000LL)};
        if (sigtimedwait(&g_waited, nullptr, &timeout) > 0) g_count = g_count + 1;
    }
}

void waitSeconds(double seconds) {
    if (g_waitForIt) return waitCounting(seconds);
    const struct timespec end = deadlineIn(seconds);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, nullptr) != 0) {
    }
}

std::atomic<bool> g_stop{false};
void* toggle(void* arg) {
    const int sig = *static_cast<int*>(arg);
    struct sigaction on {}, off {};
    sigemptyset(&on.sa_mask);
    sigemptyset(&off.sa_mask);
    on.sa_sigaction = infoHandler;
    on.sa_flags = SA_SIGINFO;
    off.sa_handler = SIG_IGN;
    while (!g_stop.load()) {
        sigaction(sig, &on, nullptr);
        sigaction(sig, &off, nullptr);
    }
    return nullptr;
}

int special(int sig, double seconds, const std::string& how) {
    struct sigaction sa {};
    sigemptyset(&sa.sa_mask);
    if (how == "siginfo-dfl" || how == "siginfo-ign") {
        sa.sa_sigaction = infoHandler;
        sa.sa_flags = SA_SIGINFO;
        sigaction(sig, &sa, nullptr);
        sa.sa_handler = how == "siginfo-dfl" ? SIG_DFL : SIG_IGN;  // SA_SIGINFO still set
        sigaction(sig, &sa, nullptr);
        raise(sig);
        std::printf("survived %s\n", sigabbrev_np(sig));
        return g_count;
    }
    if (how == "race") {
        sa.sa_sigaction = infoHandler;  // never the default while the thread switches
        sa.sa_flags = SA_SIGINFO;
        sigaction(sig, &sa, nullptr);
        pthread_t t;
        int s = sig;
        pthread_create(&t, nullptr, toggle, &s);
        struct timespec end {}, now {};
        clock_gettime(CLOCK_MONOTONIC, &end);
        end.tv_sec += static_cast<time_t>(seconds);
        do {
            raise(sig);
            clock_gettime(CLOCK_MONOTONIC, &now);
        } while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
        g_stop.store(true);
        pthread_join(t, nullptr);
        std::printf("race done\n");
        return 0;
    }
    if (how == "vfork-oneshot") {
        sa.sa_handler = plainHandler;
        sa.sa_flags = SA_RESETHAND;
        sigaction(sig, &sa, nullptr);
        const pid_t child = vfork();
        if (child == 0) {
            raise(sig);  // its handler runs in the child, which then resets its own disposition
            _exit(0);
        }
        int status = 0;
        waitpid(child, &status, 0);
        g_count = 0;
        raise(sig);  // the parent's handler is still its own
        std::printf("parent survived\n");
        return g_count;
    }
    return -1;
}

// An orderly stop: the workers finish when the supervisor closes their pipe, never by the signal.
int supervise(int sig, double seconds, int children) {
    struct sigaction sa {};
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = plainHandler;
    sigaction(sig, &sa, nullptr);
    int toWorkers[2];
    if (pipe(toWorkers) != 0) return 2;
    std::vector<pid_t> workers;
    for (int i = 0; i < children; ++i) {
        const pid_t pid = fork();
        if (pid == 0) {
            signal(sig, SIG_DFL);
            close(toWorkers[1]);
            char c;
            while (read(toWorkers[0], &c, 1) != 0) {  // EOF: told to finish
            }
            _exit(0);
        }
        workers.push_back(pid);
    }
    close(toWorkers[0]);
    struct timespec start {}, now {};
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        usleep(10000);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (!g_count && (now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
    usleep(200000);  // winding down: what a signal sent to each worker at once would pre-empt
    close(toWorkers[1]);
    std::string line = "supervisor: workers";
    bool allFinished = true;
    for (pid_t pid : workers) {
        int status = 0;
        waitpid(pid, &status, 0);
        allFinished = allFinished && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        line += WIFSIGNALED(status) ? " s" + std::to_string(WTERMSIG(status))
                                    : " " + std::to_string(WEXITSTATUS(status));
    }
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    return allFinished ? 0 : 1;
}

volatile sig_atomic_t g_save = 0;
void onSave(int) { g_save = 1; }

volatile pid_t g_notifier = 0;
void countOutside(int, siginfo_t* info, void*) {
    if (info->si_pid != g_notifier) g_count = g_count + 1;
}

int notified(int sig, double seconds) {
    struct sigaction sa {};
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = countOutside;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(sig, &sa, nullptr);
    const pid_t child = fork();
    if (child == 0) {
        signal(sig, SIG_IGN);
        for (int i = 0; i < static_cast<int>(seconds * 50); ++i) {
            usleep(20000);
            kill(getppid(), sig);
        }
        _exit(0);
    }
    g_notifier = child;
    waitSeconds(seconds + 0.3);
    waitpid(child, nullptr, 0);
    std::printf("%s outside: %d\n", sigabbrev_np(sig), static_cast<int>(g_count));
    std::fflush(stdout);
    return g_count;
}

int teller(int sig, double seconds) {
    const pid_t worker = fork();
    if (worker == 0) {
        signal(SIGUSR1, onSave);
        sigset_t critical;
        sigemptyset(&critical);
        sigaddset(&critical, SIGUSR1);
        sigaddset(&critical, sig);
        for (;;) {
            sigprocmask(SIG_BLOCK, &critical, nullptr);
            usleep(200000);
            sigprocmask(SIG_UNBLOCK, &critical, nullptr);
            if (g_save) {
                waitSeconds(seconds);
                std::printf("worker saved\n");
                std::fflush(stdout);
                _exit(0);
            }
        }
    }
    signal(sig, plainHandler);
    while (!g_count) pause();
    kill(worker, SIGUSR1);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: signal_count SIGNUM SECONDS [CHILDREN] [sigaction|signal|oneshot]\n");
        return 2;
    }
    const int sig = std::atoi(argv[1]);
    const double seconds = std::atof(argv[2]);
    const int children = argc > 3 ? std::atoi(argv[3]) : 0;
    const std::string how = argc > 4 ? argv[4] : "sigaction";
    if (how == "supervisor") return supervise(sig, seconds, children);
    if (how == "teller") return teller(sig, seconds);
    if (how == "notified") return notified(sig, seconds);
    if (const int r = special(sig, seconds, how); r >= 0) return r;
    if (how == "sigwait") {
        g_waitForIt = true;
        sigemptyset(&g_waited);
        sigaddset(&g_waited, sig);
        sigprocmask(SIG_BLOCK, &g_waited, nullptr);  // the children inherit it
    } else if (!install(sig, how)) {
        std::fprintf(stderr, "signal_count: the handler did not read back as it was set\n");
        return 99;
    }
    int pipeFds[2];
    if (pipe(pipeFds) != 0) return 2;
    for (int i = 0; i < children; ++i) {
        if (fork() == 0) {
            waitSeconds(seconds);
            const char c = static_cast<char>('0' + g_count);
            (void)!write(pipeFds[1], &c, 1);
            _exit(0);
        }
    }
    close(pipeFds[1]);  // a child that died by the signal writes nothing: read() then ends
    waitSeconds(seconds);
    std::string counts = std::to_string(static_cast<int>(g_count));
    int highest = g_count;
    for (int i = 0; i < children; ++i) {
        int status = 0;
        wait(&status);
        char c = '?';
        if (read(pipeFds[0], &c, 1) == 1 && c - '0' > highest) highest = c - '0';
        counts += std::string(" ") + c;
    }
    if (how == "oneshot" && g_count > 0) {
        struct sigaction back {};
        sigaction(sig, nullptr, &back);
        if (back.sa_handler != SIG_DFL || !(back.sa_flags & SA_RESETHAND)) {
            std::fprintf(stderr, "signal_count: after SA_RESETHAND's delivery: handler %p flags %#x\n",
                         reinterpret_cast<void*>(back.sa_handler), static_cast<unsigned>(back.sa_flags));
            return 98;
        }
    }
    std::printf("%s counts: %s\n", sigabbrev_np(sig), counts.c_str());
    std::fflush(stdout);
    return highest;
}
