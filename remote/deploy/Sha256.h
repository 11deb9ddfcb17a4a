#pragma once
// SHA-256 of local files (OpenSSL EVP): what the board's `sha256sum` must print for an upload to count.
#include <string>

namespace npuwb::remote {

/// Lower-case hex digest of the file's bytes. Throws Error(Io) naming the file.
std::string sha256OfFile(const std::string& path);
std::string sha256OfText(const std::string& data);

}  // namespace npuwb::remote
