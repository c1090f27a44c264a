#include "app/remote/SshSession.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/remote/SshErrors.h"

namespace sl::remote {

SshSession::SshSession(SshTarget target) : m_target(std::move(target)) {}

SshSession::~SshSession() {
    if (m_connected) {
        std::vector<std::string> exit = baseArgs();
        exit.insert(exit.end() - 1, {"-O", "exit"});
        (void)runProgram(exit);
    }
    if (!m_dir.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }
}

std::vector<std::string> SshSession::baseArgs() const {
    std::vector<std::string> a = {"ssh"};
    if (!m_target.configFile.empty()) a.insert(a.end(), {"-F", m_target.configFile});
    // %C: a hash of the connection's parameters, short enough for a socket path.
    a.insert(a.end(), {"-o", "ControlPath=" + m_dir + "/%C", "-o", "BatchMode=yes",
                       "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
                       "-o", "ConnectTimeout=15"});
    a.insert(a.end(), {"-o", std::string("StrictHostKeyChecking=") +
                                 (m_target.acceptNewHostKey ? "accept-new" : "yes")});
    if (m_target.port) a.insert(a.end(), {"-p", std::to_string(m_target.port)});
    // A key given by the user is the one to use: without IdentitiesOnly, the agent's keys are
    // tried first and a server's MaxAuthTries may refuse before the given key is offered.
    if (!m_target.keyFile.empty())
        a.insert(a.end(), {"-i", m_target.keyFile, "-o", "IdentitiesOnly=yes"});
    if (!m_target.jumpHost.empty()) a.insert(a.end(), {"-J", m_target.jumpHost});
    a.push_back(m_target.destination());
    return a;
}

Status SshSession::connect() {
    if (!m_target.keyFile.empty() && access(m_target.keyFile.c_str(), R_OK) != 0)
        return makeError("--remote-key " + m_target.keyFile + ": " + std::strerror(errno));
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    std::string base = runtime && *runtime && access(runtime, W_OK) == 0 ? runtime : "/tmp";
    std::string templ = base + "/sightline-ssh-XXXXXX";
    // A socket path has at most 107 bytes; %C adds 41.
    if (templ.size() > 60) templ = "/tmp/sightline-ssh-XXXXXX";
    if (!mkdtemp(templ.data()))
        return makeError("cannot create a private directory for the ssh connection in " + base +
                         ": " + std::strerror(errno));
    m_dir = templ;
    const std::string log = m_dir + "/master.log";
    const int logFd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (logFd < 0) return makeError("cannot create " + log + ": " + std::strerror(errno));
    std::vector<std::string> args = baseArgs();
    // -f -N: background once authenticated; ControlPersist keeps it 60 s after the last channel
    // when we are gone without closing it (killed), so nothing lingers for long.
    args.insert(args.end() - 1, {"-o", "ControlMaster=yes", "-o", "ControlPersist=60", "-f", "-N"});
    SpawnOptions o;
    o.pipeOut = false;
    o.pipeErr = false;
    o.errFd = logFd;
    auto child = spawn(args, o);
    close(logFd);
    if (!child) return makeError(child.error());
    const int code = waitChild(child->pid);
    if (code == 0) {
        m_connected = true;
        return {};
    }
    std::ifstream in(log);
    std::stringstream said;
    said << in.rdbuf();
    if (code == 127) return makeError("cannot run ssh: install the OpenSSH client (apt install openssh-client)");
    const std::string text = said.str();
    std::string prints, known;
    if (classifySshFailure(text) == SshFailure::UnknownHostKey) {
        prints = hostKeyFingerprints(m_target);
        known = knownHostsFile(m_target);
    }
    return makeError(explainSshFailure(m_target, text, prints, known));
}

Result<Ran> SshSession::run(const std::string& remoteCommand, const std::string& input) {
    std::vector<std::string> args = baseArgs();
    args.insert(args.end() - 1, {"-o", "ControlMaster=no"});
    args.push_back(remoteCommand);
    return runProgram(args, input);
}

std::string failureReason(const Ran& r) {
    auto trim = [](std::string t) {
        while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
        size_t b = 0;
        while (b < t.size() && std::isspace(static_cast<unsigned char>(t[b]))) ++b;
        return t.substr(b);
    };
    if (std::string err = trim(r.err); !err.empty()) return err;
    std::string why = r.code == SshSession::kSshError ? "ssh exited 255: the connection failed"
                                                     : "exit code " + std::to_string(r.code) + ", nothing on stderr";
    if (std::string out = trim(r.out); !out.empty())
        why += "; its output ended: " + (out.size() > 200 ? "..." + out.substr(out.size() - 200) : out);
    return why;
}

Result<Child> SshSession::start(const std::string& remoteCommand, const SpawnOptions& o) {
    std::vector<std::string> args = baseArgs();
    args.insert(args.end() - 1, {"-o", "ControlMaster=no"});
    args.push_back(remoteCommand);
    return spawn(args, o);
}

}  // namespace sl::remote
