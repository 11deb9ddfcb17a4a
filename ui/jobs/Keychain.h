#pragma once
// Board passwords and key passphrases in the OS keychain (qtkeychain: Secret Service / KWallet / macOS Keychain),
// service "npuwb", key "user@host:port" (passphrases: "user@host:port passphrase"). Only when the user ticks
// "Remember in keychain". There is deliberately no plain-text fallback: without a keychain nothing is stored.
// All calls are asynchronous and must be made on a thread with an event loop (the GUI thread).
#include <QObject>
#include <QString>

#include <functional>
#include <optional>

namespace npuwb::ui {

namespace Keychain {

inline constexpr const char* kService = "npuwb";

/// "user@host:port" for passwords, "user@host:port passphrase" for key passphrases.
QString keyFor(const QString& userHostPort, const QString& kind);

/// Calls `done` (on `context`'s thread) with the secret, or nullopt when none is stored or the keychain is not
/// available (then `error` says why; empty when simply nothing was stored).
void read(const QString& key, QObject* context,
          std::function<void(std::optional<QString> secret, const QString& error)> done);
/// Stores the secret; `done` (may be null) gets an empty string on success, else the keychain's error.
void write(const QString& key, const QString& secret, QObject* context, std::function<void(const QString& error)> done = {});
/// Forgets the secret (no error when there was none).
void remove(const QString& key, QObject* context, std::function<void(const QString& error)> done = {});

}  // namespace Keychain

}  // namespace npuwb::ui
