// Host-key check and user authentication of SshSession: the two steps that decide whether we trust the board
// and whether it trusts us.
#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ssh/SshSession.h"
#include "ssh/SshUtil.h"
#include "npuwb/Error.h"

namespace npuwb::remote {

namespace {
std::string sha256Fingerprint(ssh_key key) {
    unsigned char* hash = nullptr;
    size_t len = 0;
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &len) != SSH_OK) return "";
    char* text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, len);
    ssh_clean_pubkey_hash(&hash);
    if (!text) return "";
    std::string fp = text;
    ssh_string_free_char(text);
    return fp;
}

// Fingerprint of the key known_hosts holds for `name` (plain host fields only; hashed ones are skipped), for the
// changed-key warning when libssh does not hand the entry back.
std::string knownFingerprint(const std::string& path, const std::string& name) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string hosts, type, b64;
        if (!(fields >> hosts >> type >> b64) || hosts[0] == '#' || hosts[0] == '@' || hosts[0] == '|') continue;
        std::istringstream list(hosts);
        std::string h;
        bool match = false;
        while (std::getline(list, h, ',')) match = match || h == name;
        if (!match) continue;
        ssh_key raw = nullptr;
        if (ssh_pki_import_pubkey_base64(b64.c_str(), ssh_key_type_from_name(type.c_str()), &raw) != SSH_OK) continue;
        KeyPtr key(raw);
        return sha256Fingerprint(key.get());
    }
    return "";
}

std::string methodsText(int methods) {
    std::string s;
    auto add = [&](int bit, const char* name) {
        if (methods & bit) s += std::string(s.empty() ? "" : ", ") + name;
    };
    add(SSH_AUTH_METHOD_PUBLICKEY, "publickey");
    add(SSH_AUTH_METHOD_PASSWORD, "password");
    add(SSH_AUTH_METHOD_INTERACTIVE, "keyboard-interactive");
    add(SSH_AUTH_METHOD_GSSAPI_MIC, "gssapi");
    add(SSH_AUTH_METHOD_HOSTBASED, "hostbased");
    return s.empty() ? "none" : s;
}

// libssh asks for key passphrases through this C callback (ssh_userauth_publickey_auto, key import).
struct PassphraseContext {
    const SshPrompts* prompts = nullptr;
    std::string lastAnswer;
};
int passphraseCallback(const char* prompt, char* buf, size_t len, int /*echo*/, int /*verify*/, void* userdata) {
    auto* ctx = static_cast<PassphraseContext*>(userdata);
    if (!ctx || !ctx->prompts->passphrase || len == 0) return -1;
    auto answer = ctx->prompts->passphrase(prompt ? prompt : "Passphrase for private key: ");
    if (!answer || answer->size() + 1 > len) return -1;
    std::memcpy(buf, answer->c_str(), answer->size() + 1);
    ctx->lastAnswer = *answer;
    return 0;
}
}  // namespace

void SshSession::verifyHostKey() {
    ssh_key raw = nullptr;
    if (ssh_get_server_publickey(session_, &raw) != SSH_OK)
        fail(ErrorKind::Io, "board " + describe() + ": no host key: " + ssh_get_error(session_));
    KeyPtr key(raw);
    HostKeyInfo info;
    info.host = knownHostsName(host_, port_);
    info.keyType = ssh_key_type_to_char(ssh_key_type(key.get()));
    info.fingerprint = sha256Fingerprint(key.get());
    info.knownHostsPath = options_.knownHostsPath;
    switch (ssh_session_is_known_server(session_)) {
        case SSH_KNOWN_HOSTS_OK: return;
        case SSH_KNOWN_HOSTS_CHANGED:
        case SSH_KNOWN_HOSTS_OTHER: {
            info.status = HostKeyStatus::Changed;
            ssh_knownhosts_entry* entry = nullptr;
            if (ssh_session_get_known_hosts_entry(session_, &entry) != SSH_KNOWN_HOSTS_ERROR && entry) {
                if (entry->publickey) {
                    info.knownFingerprint = sha256Fingerprint(entry->publickey);
                    if (ssh_key_type(entry->publickey) != ssh_key_type(key.get())) info.status = HostKeyStatus::OtherType;
                }
                ssh_knownhosts_entry_free(entry);
            }
            if (info.knownFingerprint.empty()) info.knownFingerprint = knownFingerprint(options_.knownHostsPath, info.host);
            disconnect();
            fail(ErrorKind::InvalidInput, "board " + info.host + ": " + changedHostKeyMessage(info));
        }
        case SSH_KNOWN_HOSTS_UNKNOWN:
        case SSH_KNOWN_HOSTS_NOT_FOUND: break;
        case SSH_KNOWN_HOSTS_ERROR:
        default: {
            const std::string why = ssh_get_error(session_);
            disconnect();
            fail(ErrorKind::Io, "board " + info.host + ": cannot check the host key against " +
                                    options_.knownHostsPath + ": " + why);
        }
    }
    info.status = HostKeyStatus::Unknown;
    const bool trusted =
        options_.acceptNewHostKey || (prompts_.confirmUnknownHost && prompts_.confirmUnknownHost(info));
    if (!trusted) {
        disconnect();
        fail(ErrorKind::InvalidInput, "board " + info.host + " is not in " + options_.knownHostsPath +
                                          "; its " + info.keyType + " key fingerprint is " + info.fingerprint +
                                          ". Check it on the board (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub) "
                                          "and connect again agreeing to trust it (CLI: --accept-new).");
    }
    char* b64 = nullptr;
    if (ssh_pki_export_pubkey_base64(key.get(), &b64) != SSH_OK || !b64)
        fail(ErrorKind::Internal, "board " + info.host + ": cannot export its host key");
    const std::string line = knownHostsLine(info.host, info.keyType, b64);
    ssh_string_free_char(b64);
    appendKnownHostsLine(options_.knownHostsPath, line);
    if (prompts_.hostKeyAdded) prompts_.hostKeyAdded(info);
}

void SshSession::authenticate() {
    int rc = ssh_userauth_none(session_, nullptr);
    if (rc == SSH_AUTH_SUCCESS) return;
    if (rc == SSH_AUTH_ERROR)
        fail(ErrorKind::Io, "board " + describe() + ": authentication error: " + ssh_get_error(session_));
    const int methods = ssh_userauth_list(session_, nullptr);
    std::vector<std::string> tried;
    PassphraseContext ctx{&prompts_, {}};
    ssh_callbacks_struct callbacks{};
    ssh_callbacks_init(&callbacks);
    callbacks.userdata = &ctx;
    callbacks.auth_function = passphraseCallback;
    ssh_set_callbacks(session_, &callbacks);
    struct Unset {  // the callbacks live on this stack frame only
        ssh_session s;
        ~Unset() { ssh_set_callbacks(s, nullptr); }
    } unset{session_};

    if (methods & SSH_AUTH_METHOD_PUBLICKEY) {
        // 1. keys named by the user (--identity), each with its own passphrase prompt
        for (const auto& file : options_.identityFiles) {
            checkCancel();
            ssh_key raw = nullptr;
            ctx.lastAnswer.clear();
            const int imp = ssh_pki_import_privkey_file(file.c_str(), nullptr, passphraseCallback, &ctx, &raw);
            if (imp != SSH_OK) {
                tried.push_back("key " + file + " (cannot read it" +
                                std::string(ctx.lastAnswer.empty() ? "" : ": wrong passphrase?") + ")");
                continue;
            }
            KeyPtr key(raw);
            tried.push_back("key " + file);
            rc = ssh_userauth_publickey(session_, nullptr, key.get());
            if (rc == SSH_AUTH_SUCCESS) {
                if (!ctx.lastAnswer.empty() && prompts_.secretAccepted) prompts_.secretAccepted("passphrase", ctx.lastAnswer);
                return;
            }
            if (rc == SSH_AUTH_ERROR)
                fail(ErrorKind::Io, "board " + describe() + ": authentication error: " + ssh_get_error(session_));
        }
        // 2. ssh-agent, then the ssh config's IdentityFile and the default keys (~/.ssh/id_*)
        if (options_.useSshAgent || options_.identityFiles.empty()) {
            checkCancel();
            rc = ssh_userauth_publickey_auto(session_, nullptr, nullptr);
            tried.push_back(std::getenv("SSH_AUTH_SOCK") ? "ssh-agent and default keys" : "default keys");
            if (rc == SSH_AUTH_SUCCESS) return;
            if (rc == SSH_AUTH_ERROR)
                fail(ErrorKind::Io, "board " + describe() + ": authentication error: " + ssh_get_error(session_));
        }
    }
    // 3. password, at most three attempts
    if ((methods & SSH_AUTH_METHOD_PASSWORD) && prompts_.password) {
        for (int attempt = 0; attempt < 3; ++attempt) {
            checkCancel();
            auto pw = prompts_.password(user_ + "@" + host_ + "'s password: ");
            if (!pw) break;
            tried.push_back("password");
            rc = ssh_userauth_password(session_, nullptr, pw->c_str());
            if (rc == SSH_AUTH_SUCCESS) {
                if (prompts_.secretAccepted) prompts_.secretAccepted("password", *pw);
                return;
            }
            if (rc == SSH_AUTH_ERROR)
                fail(ErrorKind::Io, "board " + describe() + ": authentication error: " + ssh_get_error(session_));
        }
    }
    // 4. keyboard-interactive: every prompt goes to the password callback
    if ((methods & SSH_AUTH_METHOD_INTERACTIVE) && prompts_.password) {
        tried.push_back("keyboard-interactive");
        rc = ssh_userauth_kbdint(session_, nullptr, nullptr);
        while (rc == SSH_AUTH_INFO) {
            checkCancel();
            const int n = ssh_userauth_kbdint_getnprompts(session_);
            bool answered = true;
            for (int i = 0; i < n && answered; ++i) {
                char echo = 0;
                const char* prompt = ssh_userauth_kbdint_getprompt(session_, static_cast<unsigned>(i), &echo);
                auto answer = prompts_.password(prompt ? prompt : "");
                answered = answer.has_value();
                if (answered) ssh_userauth_kbdint_setanswer(session_, static_cast<unsigned>(i), answer->c_str());
            }
            if (!answered) break;
            rc = ssh_userauth_kbdint(session_, nullptr, nullptr);
        }
        if (rc == SSH_AUTH_SUCCESS) return;
    }
    std::string triedText;
    for (const auto& t : tried) triedText += (triedText.empty() ? "" : "; ") + t;
    const std::string who = describe();
    disconnect();
    fail(ErrorKind::InvalidInput, "authentication failed for board " + who + ": tried " +
                                      (triedText.empty() ? "nothing usable" : triedText) +
                                      "; the server accepts " + methodsText(methods) +
                                      ". Check --identity, the password, or the board's authorized_keys.");
}

}  // namespace npuwb::remote
