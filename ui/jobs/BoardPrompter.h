#pragma once
// Puts the SSH prompts to the user. The remote library asks from a worker thread (host key, password, key
// passphrase); each question is posted to the GUI thread and asked through BoardQuestions (dialogs in the window,
// never a nested event loop), and the worker waits for the answer on a condition variable, polling its cancel flag,
// so Cancel always ends the wait and takes the question back. The GUI thread never blocks on the network or on
// the worker.
// Secrets: a stored keychain secret is tried first; a typed one is written to the keychain only when the user
// ticked "Remember" and the board accepted it.
#include <QObject>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "jobs/BoardQuestions.h"
#include "models/BoardSettings.h"
#include "ssh/SshSession.h"

namespace npuwb::ui {

class BoardPrompter : public QObject {
    Q_OBJECT
public:
    /// Lives on the GUI thread and asks through `questions` (shared: the questions must outlive the last prompt).
    BoardPrompter(std::shared_ptr<BoardQuestions> questions, QObject* parent);

    /// Callbacks for one connection, to be called on the worker. `describe` names the board as connected
    /// (user@host:port: the keychain key). Keep this object alive until the worker is done.
    remote::SshPrompts prompts(const std::atomic<bool>* cancel, std::function<std::string()> describe);

    /// Forgets remembered secrets this prompter handed out since the last call, e.g. after the board refused
    /// them (a changed password must not be retried forever). Call from any thread.
    void forgetSecretsJustUsed();
    /// They worked: nothing to forget.
    void keepSecretsJustUsed();

    /// Off: never read or write the keychain (the default follows $NPUWB_NO_KEYCHAIN; tests turn it off).
    void setKeychainEnabled(bool on) { keychain_ = on; }
    bool keychainEnabled() const { return keychain_; }

signals:
    /// Keychain outcome worth telling the user ("Password for ... saved in the keychain", errors).
    void keychainMessage(const QString& message);

private:
    std::shared_ptr<BoardQuestions> questions_;
    std::mutex usedMutex_;
    QStringList usedKeys_;  // keychain keys whose secrets were handed out (worker threads append)
    std::atomic<bool> keychain_;
};

/// Connects to `board` asking through `prompter` (on the worker thread). Throws npuwb::Error.
std::unique_ptr<remote::SshSession> connectBoard(const BoardEntry& board, BoardPrompter& prompter,
                                                 const std::atomic<bool>* cancel);

/// True for the remote library's refusal of a changed host key (shown as a warning dialog, not a plain error).
bool isChangedHostKeyError(const QString& message);

}  // namespace npuwb::ui
