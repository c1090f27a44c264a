#include "app/remote/SshTarget.h"

#include <cctype>

#include "app/remote/ShellQuote.h"

namespace sl::remote {

std::string SshTarget::destination() const { return user.empty() ? host : user + "@" + host; }

std::string SshTarget::display() const {
    std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    std::string out = user.empty() ? h : user + "@" + h;
    return port ? out + ":" + std::to_string(port) : out;
}

std::string SshTarget::commandOptions() const {
    std::string out = "--remote " + shellQuote(display());
    if (!keyFile.empty()) out += " --remote-key " + shellQuote(keyFile);
    if (!configFile.empty()) out += " --remote-ssh-config " + shellQuote(configFile);
    if (!jumpHost.empty()) out += " --remote-jump " + shellQuote(jumpHost);
    return out;
}

Result<SshTarget> parseTarget(const std::string& text) {
    const std::string what = "--remote '" + text + "': ";
    if (text.empty()) return makeError("--remote needs user@host[:port]");
    for (char c : text)
        if (std::isspace(static_cast<unsigned char>(c)) || std::iscntrl(static_cast<unsigned char>(c)))
            return makeError(what + "a host name has no spaces or control characters");
    if (text.front() == '-') return makeError(what + "a host name does not start with '-'");
    SshTarget t;
    std::string rest = text;
    if (const size_t at = rest.rfind('@'); at != std::string::npos) {
        t.user = rest.substr(0, at);
        rest = rest.substr(at + 1);
        if (t.user.empty()) return makeError(what + "the user name before '@' is empty");
    }
    std::string port;
    if (!rest.empty() && rest.front() == '[') {
        const size_t close = rest.find(']');
        if (close == std::string::npos) return makeError(what + "'[' without ']'");
        t.host = rest.substr(1, close - 1);
        const std::string after = rest.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return makeError(what + "expected ':PORT' after ']'");
            port = after.substr(1);
            if (port.empty()) return makeError(what + "the port after ':' is empty");
        }
    } else if (const size_t colon = rest.find(':');
               colon != std::string::npos && rest.find(':', colon + 1) == std::string::npos) {
        t.host = rest.substr(0, colon);
        port = rest.substr(colon + 1);
        if (port.empty()) return makeError(what + "the port after ':' is empty");
    } else {
        t.host = rest;
    }
    if (t.host.empty()) return makeError(what + "the host name is empty");
    if (!port.empty()) {
        if (port.size() > 5) return makeError(what + "the port must be 1 to 65535");
        for (char c : port)
            if (!std::isdigit(static_cast<unsigned char>(c)))
                return makeError(what + "the port '" + port + "' is not a number");
        t.port = std::stoi(port);
        if (t.port < 1 || t.port > 65535) return makeError(what + "the port must be 1 to 65535");
    }
    return t;
}

}  // namespace sl::remote
