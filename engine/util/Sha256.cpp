#include "npuwb/Sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <vector>

#include "npuwb/Error.h"

namespace npuwb {

void Sha256::Free::operator()(evp_md_ctx_st* ctx) const { EVP_MD_CTX_free(ctx); }

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
        fail(ErrorKind::Internal, "OpenSSL: SHA-256 is not available");
}

void Sha256::update(const void* data, size_t size) {
    if (EVP_DigestUpdate(ctx_.get(), data, size) != 1) fail(ErrorKind::Internal, "OpenSSL: SHA-256 update failed");
}

std::string Sha256::hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), md, &len) != 1) fail(ErrorKind::Internal, "OpenSSL: SHA-256 final failed");
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * len);
    for (unsigned int i = 0; i < len; ++i) {
        out += digits[md[i] >> 4];
        out += digits[md[i] & 15];
    }
    return out;
}

std::string sha256Hex(std::string_view bytes) {
    Sha256 h;
    h.update(bytes);
    return h.hex();
}

std::string sha256OfFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(ErrorKind::Io, "cannot read " + path);
    Sha256 h;
    std::vector<char> block(1 << 20);
    while (in) {
        in.read(block.data(), static_cast<std::streamsize>(block.size()));
        if (in.gcount() > 0) h.update(block.data(), static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) fail(ErrorKind::Io, "error reading " + path);
    return h.hex();
}

}  // namespace npuwb
