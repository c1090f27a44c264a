#pragma once
// A throw-away OpenSSH server for the remote-capture tests: /usr/sbin/sshd on 127.0.0.1 on a free
// port, with its own host key, a client key in a temporary authorized_keys, a known_hosts that
// holds its host key, and an ssh config for the client (SIGHTLINE_SSH_CONFIG) that uses nothing
// of the user's (~/.ssh, the agent). The remote login gets HOME=<dir>/home and PATH=/usr/bin:/bin
// (sshd's SetEnv), so remote sessions land in the test's directory and no sightline is on PATH.
#include <sys/types.h>

#include <string>

namespace sl::test {

class SshServer {
public:
    SshServer();
    ~SshServer();  // kills sshd and its connections, removes the directory
    SshServer(const SshServer&) = delete;
    SshServer& operator=(const SshServer&) = delete;

    // Empty when the server runs; else why not (the tests skip with it).
    const std::string& unavailable() const { return m_unavailable; }
    bool start();  // (re)starts sshd on the same port; false: see unavailable()
    void kill();   // SIGKILL to sshd and every connection it serves (a lost connection)

    std::string target() const;  // "root@127.0.0.1:PORT"
    const std::string& dir() const { return m_dir; }
    std::string home() const { return m_dir + "/home"; }
    std::string clientKey() const { return m_dir + "/client"; }
    std::string wrongKey() const { return m_dir + "/wrong"; }
    std::string sshConfig() const { return m_dir + "/ssh_config"; }
    // A client config whose known_hosts is empty (the host key is unknown).
    std::string sshConfigUnknownHost() const { return m_dir + "/ssh_config_unknown"; }
    std::string hostFingerprint() const;  // "SHA256:..."
    int port() const { return m_port; }

private:
    std::string m_dir, m_unavailable, m_user;
    int m_port = 0;
    pid_t m_pid = -1;
};

}  // namespace sl::test
