#include "jobs/BoardPrompter.h"

#include <QMetaObject>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "jobs/Keychain.h"
#include "npuwb/Error.h"

namespace npuwb::ui {

namespace {

// One question in flight: the GUI thread answers, the worker waits.
template <class T>
struct Pending {
    std::mutex mutex;
    std::condition_variable cv;
    std::optional<T> answer;
    bool done = false;
    BoardQuestions::Withdraw withdraw;  // GUI thread only

    void set(std::optional<T> value) {
        {
            std::lock_guard lock(mutex);
            if (done) return;
            answer = std::move(value);
            done = true;
        }
        cv.notify_all();
    }
    bool isDone() {
        std::lock_guard lock(mutex);
        return done;
    }
};

/// The answer; nullopt on cancel, timeout or "no answer". Takes the question back when giving up.
template <class T>
std::optional<T> waitFor(const std::shared_ptr<Pending<T>>& pending, const std::atomic<bool>* cancel, QObject* context,
                         std::chrono::seconds limit = std::chrono::hours(24)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    std::unique_lock lock(pending->mutex);
    while (!pending->done) {
        pending->cv.wait_for(lock, std::chrono::milliseconds(100));
        if (!pending->done && ((cancel && cancel->load()) || std::chrono::steady_clock::now() > until)) {
            pending->done = true;
            lock.unlock();
            QMetaObject::invokeMethod(context, [pending] { if (pending->withdraw) pending->withdraw(); },
                                      Qt::QueuedConnection);
            return std::nullopt;
        }
    }
    return pending->answer;
}

// What one connection learned about its secrets (worker thread only).
struct SecretState {
    bool storedTried[2] = {false, false};
    bool fromKeychain[2] = {false, false};
    bool remember[2] = {false, false};
};

int kindIndex(const std::string& kind) { return kind == "passphrase" ? 1 : 0; }

}  // namespace

BoardPrompter::BoardPrompter(std::shared_ptr<BoardQuestions> questions, QObject* parent)
    : QObject(parent), questions_(std::move(questions)), keychain_(std::getenv("NPUWB_NO_KEYCHAIN") == nullptr) {}

remote::SshPrompts BoardPrompter::prompts(const std::atomic<bool>* cancel, std::function<std::string()> describe) {
    remote::SshPrompts p;
    p.confirmUnknownHost = [this, cancel](const remote::HostKeyInfo& info) {
        auto pending = std::make_shared<Pending<bool>>();
        // Pending outlives a dropped post (the lambda holds it); `this` outlives the worker (see the header).
        QMetaObject::invokeMethod(this, [this, info, pending] {
            if (pending->isDone()) return;
            pending->withdraw = questions_->askTrustHostKey(info, [pending](bool trust) { pending->set(trust); });
        }, Qt::QueuedConnection);
        return waitFor(pending, cancel, this).value_or(false);
    };

    auto state = std::make_shared<SecretState>();
    auto ask = [this, cancel, describe, state](const std::string& kind, const std::string& prompt) -> std::optional<std::string> {
        const int k = kindIndex(kind);
        const QString board = QString::fromStdString(describe());
        const QString key = Keychain::keyFor(board, QString::fromStdString(kind));
        if (keychain_ && !state->storedTried[k]) {  // a remembered secret goes first, once per connection
            state->storedTried[k] = true;
            auto pending = std::make_shared<Pending<QString>>();
            QMetaObject::invokeMethod(this, [this, key, pending] {
                Keychain::read(key, this, [pending](std::optional<QString> secret, const QString&) {
                    pending->set(std::move(secret));
                });
            }, Qt::QueuedConnection);
            // A keychain that does not answer must not stall the connection: fall back to asking.
            if (auto stored = waitFor(pending, cancel, this, std::chrono::seconds(15))) {
                state->fromKeychain[k] = true;
                std::lock_guard lock(usedMutex_);
                usedKeys_ << key;
                return stored->toStdString();
            }
        }
        state->fromKeychain[k] = false;
        if (cancel && cancel->load()) return std::nullopt;
        auto pending = std::make_shared<Pending<BoardQuestions::SecretAnswer>>();
        QMetaObject::invokeMethod(this, [this, kind, board, prompt, pending] {
            if (pending->isDone()) return;
            pending->withdraw = questions_->askSecret(
                QString::fromStdString(kind), board, QString::fromStdString(prompt), keychain_,
                [pending](std::optional<BoardQuestions::SecretAnswer> answer) { pending->set(std::move(answer)); });
        }, Qt::QueuedConnection);
        auto answer = waitFor(pending, cancel, this);
        if (!answer) return std::nullopt;
        state->remember[k] = answer->remember;
        return answer->secret.toStdString();
    };
    p.password = [ask](const std::string& prompt) { return ask("password", prompt); };
    p.passphrase = [ask](const std::string& prompt) { return ask("passphrase", prompt); };
    p.secretAccepted = [this, describe, state](const std::string& kind, const std::string& secret) {
        const int k = kindIndex(kind);
        if (!keychain_ || !state->remember[k] || state->fromKeychain[k]) return;
        const QString board = QString::fromStdString(describe());
        const QString key = Keychain::keyFor(board, QString::fromStdString(kind));
        QMetaObject::invokeMethod(this, [this, key, board, kind = QString::fromStdString(kind),
                                         secret = QString::fromStdString(secret)] {
            Keychain::write(key, secret, this, [this, board, kind](const QString& error) {
                emit keychainMessage(error.isEmpty() ? tr("The %1 for %2 is now in the keychain").arg(kind, board)
                                                     : tr("Could not store the %1 for %2 in the keychain: %3")
                                                           .arg(kind, board, error));
            });
        }, Qt::QueuedConnection);
    };
    return p;
}

void BoardPrompter::forgetSecretsJustUsed() {
    QStringList keys;
    {
        std::lock_guard lock(usedMutex_);
        keys.swap(usedKeys_);
    }
    if (keys.isEmpty()) return;
    QMetaObject::invokeMethod(this, [this, keys] {
        for (const QString& key : keys)
            Keychain::remove(key, this, [this, key](const QString& error) {
                if (error.isEmpty()) emit keychainMessage(tr("Forgot the remembered secret for %1: the board refused it").arg(key));
            });
    }, Qt::QueuedConnection);
}

void BoardPrompter::keepSecretsJustUsed() {
    std::lock_guard lock(usedMutex_);
    usedKeys_.clear();
}

std::unique_ptr<remote::SshSession> connectBoard(const BoardEntry& board, BoardPrompter& prompter,
                                                 const std::atomic<bool>* cancel) {
    auto holder = std::make_shared<remote::SshSession*>(nullptr);  // the prompts name the board as connected
    auto session = std::make_unique<remote::SshSession>(
        board.connection, prompter.prompts(cancel, [holder] { return *holder ? (*holder)->describe() : std::string(); }),
        cancel);
    *holder = session.get();
    try {
        session->connect();
    } catch (const Error& e) {
        // A remembered secret that no longer works would otherwise be tried first on every connect.
        if (QString::fromStdString(e.what()).startsWith(QLatin1String("authentication failed"))) prompter.forgetSecretsJustUsed();
        throw;
    }
    prompter.keepSecretsJustUsed();
    return session;
}

bool isChangedHostKeyError(const QString& message) {
    // remote::changedHostKeyMessage() is the only error that mentions this; nothing else refuses a known host.
    return message.contains(QLatin1String("man-in-the-middle"));
}

}  // namespace npuwb::ui
