#pragma once
// SHA-256 (OpenSSL EVP) as lower-case hex: content hashes of calibration data sets, and what a board's `sha256sum`
// must print for an upload to count.
#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace npuwb {

/// Incremental SHA-256: update() with the bytes in order, then hex() once.
class Sha256 {
public:
    Sha256();  // throws Error(Internal) when OpenSSL has no SHA-256
    void update(const void* data, size_t size);
    void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
    /// The digest of everything passed to update(), as 64 lower-case hex digits. Call once.
    std::string hex();

private:
    struct Free {
        void operator()(evp_md_ctx_st* ctx) const;
    };
    std::unique_ptr<evp_md_ctx_st, Free> ctx_;
};

/// Lower-case hex digest of `bytes`.
std::string sha256Hex(std::string_view bytes);
/// Lower-case hex digest of a file's bytes, read in blocks. Throws Error(Io) naming the file.
std::string sha256OfFile(const std::string& path);

}  // namespace npuwb
