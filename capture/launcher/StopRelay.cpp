#include "capture/launcher/StopRelay.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

#include "capture/common/SignalBoard.h"
#include "capture/launcher/LauncherSignals.h"
#include "capture/launcher/ProcTree.h"
#include "capture/launcher/SignalBoardReader.h"

namespace sl::capture {

using namespace launcher_signals;

StopRelay::StopRelay(pid_t child, const SignalBoardReader& board,
                     std::function<void(const std::string&)> say)
    : m_child(child), m_board(board), m_say(std::move(say)) {}

bool StopRelay::passOn(int sig, const std::string& what, bool rootDone) {
    const pid_t group = getpgid(m_child);
    if (g_stopFromTerminal && (group == getpgrp() || group < 0)) {
        m_say("received " + signalName(sig) + " from the terminal, as the program did: " + what);
        return false;
    }
    const bool firstOnly = !g_stopFromTerminal && !rootDone && g_programRoot > 0;
    m_say("received " + signalName(sig) + ": sent on to the program" +
          (firstOnly ? "'s first process (to the processes it leaves running when it ends)" : "") +
          "; " + what);
    const SignalSendOn done =
        sendOnSignal(m_board, sig, g_stopAtNs.load(), g_stopSender.load(),
                     firstOnly ? std::vector<int64_t>{m_child} : descendantsOf(getpid()));
    if (done.spared)
        m_say("the program had " + signalName(sig) + " already (sent to its whole process group): " +
              std::to_string(done.spared) + (done.spared == 1 ? " process was" : " processes were") +
              " not sent a second one");
    m_restSignal = firstOnly ? sig : 0;
    m_restSinceNs = g_stopAtNs.load();
    m_restSender = g_stopSender.load();
    if (!firstOnly) m_sentTo = done.sentTo;
    return true;
}

// Not when the first process handled the stop and then ended normally (a REPL's
// KeyboardInterrupt, a script's `trap 'cleanup; exit 0' TERM`): what it left running runs on as
// after a normal end (a review found a REPL's background job killed by the SIGINT it had
// handled long before).
bool StopRelay::firstProcessEnded(int rootStatus) {
    if (!m_restSignal) return false;
    const int sig = std::exchange(m_restSignal, 0);
    if (WIFEXITED(rootStatus) && handledStop(m_board, m_child, sig, m_restSinceNs)) return true;
    const SignalSendOn done = sendOnSignal(m_board, sig, m_restSinceNs, m_restSender,
                                           descendantsOf(getpid()), /*toldCounts=*/true);
    m_sentTo = done.sentTo;
    if (!done.sentTo.empty())
        m_say("the program's first process ended: " + signalName(sig) + " sent on to the " +
              std::to_string(done.sentTo.size()) + (done.sentTo.size() == 1 ? " process" : " processes") +
              " it left running");
    return false;
}

void StopRelay::sendOnHeldSignals() {
    for (int i = kBoardStopSignalCount; i < kBoardSignalCount; ++i) {
        const int64_t since = g_heldSince[i].exchange(0);
        if (since != 0 && g_programRoot > 0)
            sendOnSignal(m_board, kBoardSignals[i], since, g_heldSender[i].load(),
                         {static_cast<int64_t>(g_programRoot)});
    }
}

void StopRelay::killThoseSentIt() {
    std::vector<int64_t> late;
    for (int64_t pid : m_sentTo) {
        if (!isDescendantOf(pid, getpid())) continue;
        late.push_back(pid);
        for (int64_t d : descendantsOf(pid)) late.push_back(d);
    }
    if (!late.empty())
        m_say(std::to_string(late.size()) + (late.size() == 1 ? " process" : " processes") +
              " still running 5 s after the stop was sent on: killed (SIGKILL)");
    for (int64_t pid : late) ::kill(static_cast<pid_t>(pid), SIGKILL);
}

}  // namespace sl::capture
