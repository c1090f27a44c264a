#include "tests/remote/SshServer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "app/remote/Subprocess.h"

namespace sl::test {

namespace fs = std::filesystem;

namespace {

int freePort() {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    close(s);
    return port;
}

bool accepts(int port) {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(s);
    return ok;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

bool keygen(const std::string& path) {
    auto r = remote::runProgram({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path});
    return r && r->code == 0;
}

}  // namespace

SshServer::SshServer() {
    if (access("/usr/sbin/sshd", X_OK) != 0) {
        m_unavailable = "/usr/sbin/sshd is not installed (apt install openssh-server)";
        return;
    }
    char templ[] = "/tmp/sl-sshd-XXXXXX";
    if (!mkdtemp(templ)) {
        m_unavailable = "cannot create a temporary directory";
        return;
    }
    m_dir = templ;
    chmod(m_dir.c_str(), 0755);
    fs::create_directories(home());
    if (const passwd* pw = getpwuid(geteuid())) m_user = pw->pw_name;
    if (!keygen(m_dir + "/hostkey") || !keygen(clientKey()) || !keygen(wrongKey())) {
        m_unavailable = "ssh-keygen failed";
        return;
    }
    fs::copy_file(clientKey() + ".pub", m_dir + "/authorized_keys");
    // sshd refuses to start without its privilege separation directory (tmpfs /run in a container).
    if (geteuid() == 0) {
        mkdir("/run/sshd", 0755);
    }
    m_port = freePort();
    std::ofstream(m_dir + "/sshd_config")
        << "Port " << m_port << "\nListenAddress 127.0.0.1\nHostKey " << m_dir << "/hostkey\n"
        << "AuthorizedKeysFile " << m_dir << "/authorized_keys\n"
        << "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
        << "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPidFile none\n"
        << "SetEnv PATH=/usr/bin:/bin HOME=" << home() << "\n";
    const std::string hostPub = readFile(m_dir + "/hostkey.pub");
    std::ofstream(m_dir + "/known_hosts")
        << "[127.0.0.1]:" << m_port << " " << hostPub.substr(0, hostPub.rfind(' ')) << "\n";
    std::ofstream(m_dir + "/known_hosts_empty");
    for (const auto& [file, known] : {std::pair{sshConfig(), std::string("/known_hosts")},
                                      std::pair{sshConfigUnknownHost(), std::string("/known_hosts_empty")}})
        std::ofstream(file) << "Host *\n  UserKnownHostsFile " << m_dir << known
                            << "\n  GlobalKnownHostsFile /dev/null\n  IdentitiesOnly yes\n"
                            << "  IdentityAgent none\n  IdentityFile /dev/null\n";
    auto check = remote::runProgram({"/usr/sbin/sshd", "-t", "-f", m_dir + "/sshd_config"});
    if (!check || check->code != 0) {
        m_unavailable = "sshd -t rejects the test configuration: " + (check ? check->err : check.error());
        return;
    }
    start();
}

bool SshServer::start() {
    if (!m_unavailable.empty() && m_pid < 0 && m_port == 0) return false;
    const std::string log = m_dir + "/sshd.log";
    m_pid = fork();
    if (m_pid == 0) {
        setsid();  // its own group: kill() reaches the connections it forked too
        freopen(log.c_str(), "a", stderr);
        execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", (m_dir + "/sshd_config").c_str(),
              static_cast<char*>(nullptr));
        _exit(127);
    }
    for (int i = 0; i < 100; ++i) {
        if (accepts(m_port)) {
            m_unavailable.clear();
            return true;
        }
        int status = 0;
        if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
            m_pid = -1;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    m_unavailable = "sshd did not start: " + readFile(log);
    return false;
}

namespace {

// Every process below `root` (sshd puts each connection in a session of its own, so its process
// group does not reach them).
std::vector<pid_t> descendants(pid_t root) {
    std::vector<std::pair<pid_t, pid_t>> parentOf;
    for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const std::string stat = readFile(e.path().string() + "/stat");
        const size_t close = stat.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(stat.substr(close + 2));
        char state;
        pid_t ppid = 0;
        rest >> state >> ppid;
        parentOf.emplace_back(std::stoi(name), ppid);
    }
    std::vector<pid_t> out = {root};
    for (size_t i = 0; i < out.size(); ++i)
        for (const auto& [pid, ppid] : parentOf)
            if (ppid == out[i]) out.push_back(pid);
    out.erase(out.begin());
    return out;
}

}  // namespace

void SshServer::kill() {
    if (m_pid <= 0) return;
    for (pid_t p : descendants(m_pid)) ::kill(p, SIGKILL);
    ::kill(-m_pid, SIGKILL);
    waitpid(m_pid, nullptr, 0);
    m_pid = -1;
    // The connection processes were in the group too; let the kernel close their sockets.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

SshServer::~SshServer() {
    kill();
    if (!m_dir.empty()) {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
}

std::string SshServer::target() const {
    return (m_user.empty() ? std::string("root") : m_user) + "@127.0.0.1:" + std::to_string(m_port);
}

std::string SshServer::hostFingerprint() const {
    auto r = remote::runProgram({"ssh-keygen", "-l", "-f", m_dir + "/hostkey.pub"});
    if (!r) return {};
    std::istringstream words(r->out);
    std::string bits, print;
    words >> bits >> print;
    return print;
}

}  // namespace sl::test
