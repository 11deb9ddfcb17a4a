#pragma once
// Internal: RAII holders for libssh handles (not part of the public API).
#include <libssh/libssh.h>

#include <memory>

namespace npuwb::remote {

struct ChannelCloser {
    void operator()(ssh_channel c) const {
        if (!c) return;
        if (ssh_channel_is_open(c)) ssh_channel_close(c);
        ssh_channel_free(c);
    }
};
using ChannelPtr = std::unique_ptr<ssh_channel_struct, ChannelCloser>;

struct KeyFree {
    void operator()(ssh_key k) const { ssh_key_free(k); }
};
using KeyPtr = std::unique_ptr<ssh_key_struct, KeyFree>;

}  // namespace npuwb::remote
