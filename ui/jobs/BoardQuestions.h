#pragma once
// What a board connection asks the user: trust an unknown host key, type a password or a key passphrase. Jobs ask
// through this interface and never show a window themselves; the UI answers with dialogs
// (dialogs/BoardQuestionDialogs.h), tests may answer directly. Every call happens on the GUI thread.
#include <QString>

#include <functional>
#include <optional>

#include "ssh/HostKeys.h"

namespace npuwb::ui {

class BoardQuestions {
public:
    struct SecretAnswer {
        QString secret;
        bool remember = false;  // store it in the OS keychain once the board accepted it
    };
    /// Takes back an open question (the worker gave up: Cancel or a timeout); harmless once it was answered.
    using Withdraw = std::function<void()>;

    virtual ~BoardQuestions() = default;

    /// Trust (and remember in known_hosts) this unknown host key? `answer` is called at most once.
    virtual Withdraw askTrustHostKey(const remote::HostKeyInfo& info, std::function<void(bool trust)> answer) = 0;
    /// A secret for `board`: `kind` is "password" or "passphrase", `prompt` what the server or libssh asked;
    /// `canRemember` says whether a keychain is there to remember it in. nullopt: the user declined.
    virtual Withdraw askSecret(const QString& kind, const QString& board, const QString& prompt, bool canRemember,
                               std::function<void(std::optional<SecretAnswer>)> answer) = 0;
};

}  // namespace npuwb::ui
