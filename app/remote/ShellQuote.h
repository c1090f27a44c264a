#pragma once
// Words for the remote shell. ssh joins its command arguments with spaces and hands the result to
// the remote login shell, so every word we send is quoted here, once: '...' with each ' written
// as '\''. Inside single quotes nothing ($, `, \, ;, spaces, newlines) is special.
#include <string>
#include <vector>

namespace sl::remote {

std::string shellQuote(const std::string& word);
// The words quoted and joined by spaces: a command line the remote shell splits back into them.
std::string shellJoin(const std::vector<std::string>& words);

}  // namespace sl::remote
