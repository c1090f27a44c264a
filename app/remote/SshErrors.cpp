#include "app/remote/SshErrors.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "app/remote/ReportCopy.h"

#include "app/remote/ShellQuote.h"
#include "app/remote/Subprocess.h"

namespace sl::remote {

namespace {

bool has(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

// ssh's last meaningful line, for the messages that quote it.
std::string lastLine(const std::string& text) {
    std::string line, last;
    for (char c : text) {
        if (c == '\r') continue;
        if (c == '\n') {
            if (!line.empty()) last = line;
            line.clear();
        } else {
            line += c;
        }
    }
    std::string said = line.empty() ? last : line;
    // ssh starts its own messages with "ssh: "; ours say "(ssh: ...)" already.
    if (said.rfind("ssh: ", 0) == 0) said.erase(0, 5);
    return said;
}

std::string portArgs(const SshTarget& t) { return t.port ? "-p " + std::to_string(t.port) + " " : ""; }

// How known_hosts names the host: "[host]:port" for a port other than 22.
std::string knownHostsName(const SshTarget& t) {
    return t.port && t.port != 22 ? "[" + t.host + "]:" + std::to_string(t.port) : t.host;
}

// SIGHTLINE_SSH_FAILURE_FILE: the caller made the file (a private temporary one) and reads it
// when the command has failed. Best effort: the message on stderr says it all anyway.
void writeFailureFile(const std::string& json) {
    const char* path = std::getenv("SIGHTLINE_SSH_FAILURE_FILE");
    if (!path || !*path) return;
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    const std::string line = json + "\n";
    size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = write(fd, line.data() + done, line.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    close(fd);
}

}  // namespace

const char* sshFailureCode(SshFailure f) {
    switch (f) {
        case SshFailure::Unreachable: return "unreachable";
        case SshFailure::UnknownHostKey: return "unknown_host_key";
        case SshFailure::ChangedHostKey: return "changed_host_key";
        case SshFailure::Authentication: return "authentication";
        case SshFailure::Other: break;
    }
    return "other";
}

std::string sshFailureJson(const SshTarget& t, SshFailure f, const std::string& fingerprints) {
    std::string prints;
    if (f == SshFailure::UnknownHostKey) {
        // ssh-keygen -l: "256 SHA256:... [127.0.0.1]:2222 (ED25519)" per key.
        std::istringstream lines(fingerprints);
        std::string line;
        while (std::getline(lines, line)) {
            std::istringstream words(line);
            std::string bits, print, word, type;
            if (!(words >> bits >> print)) continue;
            while (words >> word) type = word;
            if (type.size() > 2 && type.front() == '(' && type.back() == ')') type = type.substr(1, type.size() - 2);
            else type.clear();
            if (bits.find_first_not_of("0123456789") != std::string::npos) continue;
            prints += std::string(prints.empty() ? "" : ",") + "{\"bits\":" + bits +
                      ",\"fingerprint\":" + jsonString(print) + ",\"type\":" + jsonString(type) + "}";
        }
    }
    return std::string("{\"failure\":\"") + sshFailureCode(f) + "\",\"host\":" + jsonString(t.host) +
           ",\"port\":" + std::to_string(t.port) + ",\"target\":" + jsonString(t.display()) +
           ",\"known_hosts_name\":" + jsonString(knownHostsName(t)) + ",\"fingerprints\":[" + prints + "]}";
}

SshFailure classifySshFailure(const std::string& e) {
    if (has(e, "REMOTE HOST IDENTIFICATION HAS CHANGED") || has(e, "Host key for") ||
        has(e, "HOST KEY HAS CHANGED"))
        return SshFailure::ChangedHostKey;
    if (has(e, "host key is known for") || has(e, "Host key verification failed") ||
        has(e, "authenticity of host"))
        return SshFailure::UnknownHostKey;
    if (has(e, "Permission denied") || has(e, "Too many authentication failures") ||
        has(e, "no such identity") || has(e, "Load key"))
        return SshFailure::Authentication;
    if (has(e, "Connection refused") || has(e, "No route to host") ||
        has(e, "Could not resolve hostname") || has(e, "Connection timed out") ||
        has(e, "Network is unreachable") || has(e, "Operation timed out") ||
        has(e, "Connection closed by") || has(e, "Connection reset"))
        return SshFailure::Unreachable;
    return SshFailure::Other;
}

std::string hostKeyFingerprints(const SshTarget& t) {
    if (!t.jumpHost.empty()) return {};
    std::vector<std::string> scan = {"ssh-keyscan", "-T", "5"};
    if (t.port) scan.insert(scan.end(), {"-p", std::to_string(t.port)});
    scan.push_back(t.host);
    auto keys = runProgram(scan);
    if (!keys || keys->out.empty()) return {};
    auto prints = runProgram({"ssh-keygen", "-l", "-f", "-"}, keys->out);
    if (!prints || prints->code != 0) return {};
    return prints->out;
}

std::string knownHostsFile(const SshTarget& t) {
    std::vector<std::string> g = {"ssh", "-G"};
    if (!t.configFile.empty()) g.insert(g.end(), {"-F", t.configFile});
    if (t.port) g.insert(g.end(), {"-p", std::to_string(t.port)});
    g.push_back(t.destination());
    auto r = runProgram(g);
    if (!r || r->code != 0) return {};
    const std::string key = "\nuserknownhostsfile ";
    const std::string out = "\n" + r->out;
    const size_t at = out.find(key);
    if (at == std::string::npos) return {};
    const size_t from = at + key.size();
    return out.substr(from, out.find_first_of(" \n", from) - from);
}

std::string explainSshFailure(const SshTarget& t, const std::string& e,
                              const std::string& fingerprints, const std::string& knownHosts) {
    const std::string who = t.display();
    const std::string said = lastLine(e);
    const SshFailure failure = classifySshFailure(e);
    writeFailureFile(sshFailureJson(t, failure, fingerprints));
    switch (failure) {
        case SshFailure::UnknownHostKey: {
            std::string m = "the host key of " + who +
                            " is not in known_hosts, so ssh cannot check that it is talking to " +
                            t.host + "; nothing was run there.\n";
            if (!fingerprints.empty())
                m += "The host presents these keys (bits, fingerprint, host, type):\n" + fingerprints;
            else
                m += "(Its fingerprint could not be fetched with ssh-keyscan.)\n";
            m += "Compare with the host's own (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` "
                 "run there), then accept it, one of:\n"
                 "  ssh-keyscan " + portArgs(t) + shellQuote(t.host) + " >> " +
                 (knownHosts.empty() ? std::string("KNOWN_HOSTS   (the known_hosts file ssh uses)")
                                     : (knownHosts.rfind("~/", 0) == 0 ? knownHosts : shellQuote(knownHosts))) + "\n"
                 "  ssh " + portArgs(t) + shellQuote(t.destination()) + "   (once, answering yes)\n"
                 "  sightline ... --remote-accept-new-host-key (accepts a host seen for the first "
                 "time, never a changed key)";
            return m;
        }
        case SshFailure::ChangedHostKey:
            return "the host key of " + who +
                   " has CHANGED since it was recorded in known_hosts: someone may be intercepting "
                   "the connection, or the host was reinstalled. Nothing was run there.\n"
                   "If the change is expected, remove the old key (`ssh-keygen -R " +
                   shellQuote(knownHostsName(t)) + "`) and accept the new one.";
        case SshFailure::Authentication:
            return "authentication to " + who + " failed (ssh: " + said +
                   ").\nGive the key with --remote-key FILE, load it into the agent (`ssh-add "
                   "FILE`), or install your public key there (`ssh-copy-id " + portArgs(t) +
                   shellQuote(t.destination()) +
                   "`). Passwords are never asked for (ssh runs with BatchMode): use a key.";
        case SshFailure::Unreachable:
            return "cannot reach " + who + " (ssh: " + said +
                   ").\nCheck the host name and port, that sshd runs there, and the network (a "
                   "jump host is given with --remote-jump HOST).";
        case SshFailure::Other:
            break;
    }
    return "ssh to " + who + " failed" + (said.empty() ? std::string() : " (ssh: " + said + ")") +
           ".\nTry `ssh " + portArgs(t) + shellQuote(t.destination()) + " true` to see why.";
}

}  // namespace sl::remote
