#include "app/remote/RemoteVersion.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "app/remote/ShellQuote.h"
#include "model/rep/FormatVersion.h"

namespace sl::remote {

namespace {

// The value of "key" in a flat JSON object of numbers and plain strings (our own output).
std::string jsonField(const std::string& json, const std::string& key) {
    const std::string k = "\"" + key + "\":";
    size_t p = json.find(k);
    if (p == std::string::npos) return {};
    p += k.size();
    while (p < json.size() && json[p] == ' ') ++p;
    if (p < json.size() && json[p] == '"') {
        const size_t end = json.find('"', p + 1);
        return end == std::string::npos ? std::string() : json.substr(p + 1, end - p - 1);
    }
    size_t end = p;
    while (end < json.size() && (std::isdigit(static_cast<unsigned char>(json[end])) || json[end] == '-'))
        ++end;
    return json.substr(p, end - p);
}

}  // namespace

std::string installHint() {
    return "install the same Sightline there: build its packages (`cpack -G DEB` in a build "
           "directory makes sightline_" SIGHTLINE_VERSION "_amd64.deb, the command line without "
           "Qt), copy it over and run `sudo apt install ./sightline_" SIGHTLINE_VERSION
           "_amd64.deb`; or give the path of a sightline there with --remote-sightline PATH";
}

std::string selfVersionJson() {
    std::ostringstream o;
    o << "{\"version\":\"" << SIGHTLINE_VERSION << "\",\"format_version\":" << kFormatVersion
      << ",\"min_reader_version\":" << kMinReaderVersion << ",\"remote_protocol\":" << kRemoteProtocol
      << "}";
    return o.str();
}

std::string probeScript(const std::string& givenPath) {
    // Tagged lines, so that whatever a login script prints is not taken for an answer.
    std::string s = givenPath.empty() ? "p=$(command -v sightline)\n"
                                      : "p=" + shellQuote(givenPath) + "\n";
    s += "if [ -z \"$p\" ] || [ ! -x \"$p\" ] || [ -d \"$p\" ]; then echo \"sl-probe:missing $PATH\"; exit 0; fi\n"
         "echo \"sl-probe:path $p\"\n"
         "echo \"sl-probe:version $(\"$p\" --version 2>&1 | head -n 1)\"\n"
         "echo \"sl-probe:json $(\"$p\" remote version 2>/dev/null | head -n 1)\"\n";
    return s;
}

Result<RemoteSightline> parseProbe(const std::string& output, const std::string& host,
                                   const std::string& givenPath) {
    RemoteSightline r;
    std::string json;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        auto tagged = [&](const std::string& tag) { return line.rfind("sl-probe:" + tag + " ", 0) == 0; };
        auto rest = [&](const std::string& tag) { return line.substr(tag.size() + 10); };
        if (tagged("missing")) {
            if (!givenPath.empty())
                return makeError("--remote-sightline " + givenPath + ": no such executable on " +
                                 host + ". " + installHint());
            return makeError("sightline is not installed on " + host +
                             " (not on the PATH of a non-interactive login there: " + rest("missing") +
                             "). To fix: " + installHint());
        }
        if (tagged("path")) r.path = rest("path");
        if (tagged("version")) {
            const std::string v = rest("version");
            if (v.rfind("sightline ", 0) != 0)
                return makeError(r.path + " on " + host + " is not sightline (`--version` says '" + v +
                                 "'). " + installHint());
            r.version = v.substr(10);
        }
        if (tagged("json")) json = rest("json");
    }
    if (r.path.empty()) return makeError("the check for sightline on " + host + " printed nothing: " + output);
    if (!json.empty()) {
        r.formatVersion = std::atoi(jsonField(json, "format_version").c_str());
        r.minReaderVersion = std::atoi(jsonField(json, "min_reader_version").c_str());
        r.protocol = std::atoi(jsonField(json, "remote_protocol").c_str());
    }
    return r;
}

Status checkCompatible(const RemoteSightline& r, const std::string& host) {
    const std::string which = "sightline " + r.version + " (" + r.path + ") on " + host;
    if (r.protocol == 0 || r.formatVersion == 0)
        return makeError(which + " is too old for remote capture (it has no `sightline remote "
                         "version`; this is sightline " SIGHTLINE_VERSION "). To fix: " +
                         installHint());
    if (r.minReaderVersion > kFormatVersion)
        return makeError(which + " writes reports of format " + std::to_string(r.formatVersion) +
                         " that need a reader of format " + std::to_string(r.minReaderVersion) +
                         "; this sightline " SIGHTLINE_VERSION " reads format " +
                         std::to_string(kFormatVersion) +
                         ". To fix: update this computer's sightline to " + r.version +
                         " or newer, or point --remote-sightline at an older one there");
    if (r.protocol < kRemoteProtocol)
        return makeError(which + " is too old to be driven by this sightline " SIGHTLINE_VERSION
                         " (remote protocol " + std::to_string(r.protocol) + ", needs " +
                         std::to_string(kRemoteProtocol) + "). To fix: " + installHint());
    return {};
}

}  // namespace sl::remote
