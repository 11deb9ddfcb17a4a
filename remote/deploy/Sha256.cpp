#include "deploy/Sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

#include "util/Error.h"

namespace npuwb::remote {

namespace {
struct MdCtxFree {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

class Hasher {
public:
    Hasher() : ctx_(EVP_MD_CTX_new()) {
        if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
            fail(ErrorKind::Internal, "OpenSSL: cannot start SHA-256");
    }
    void update(const void* data, size_t n) { EVP_DigestUpdate(ctx_.get(), data, n); }
    std::string hex() {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        EVP_DigestFinal_ex(ctx_.get(), md, &len);
        static const char* digits = "0123456789abcdef";
        std::string out;
        for (unsigned i = 0; i < len; ++i) {
            out += digits[md[i] >> 4];
            out += digits[md[i] & 15];
        }
        return out;
    }

private:
    std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx_;
};
}  // namespace

std::string sha256OfFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(ErrorKind::Io, "cannot read " + path);
    Hasher h;
    std::vector<char> buf(1 << 20);
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        if (in.gcount() > 0) h.update(buf.data(), static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) fail(ErrorKind::Io, "error reading " + path);
    return h.hex();
}

std::string sha256OfText(const std::string& data) {
    Hasher h;
    h.update(data.data(), data.size());
    return h.hex();
}

}  // namespace npuwb::remote
