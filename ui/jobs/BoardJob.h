#pragma once
// "Test connection" and "Deploy" for one saved board, on a worker thread with progress and Cancel.
// Test: connect (host-key and secret prompts through BoardPrompter), `uname -m` / `uname -r` (no agent needed),
// then `npuwb-agent probe` when an agent is already installed. Deploy: upload the agent matching the board
// (only what differs), then probe.
#include <QFutureWatcher>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "jobs/Job.h"
#include "models/BoardSettings.h"

namespace npuwb::ui {

class BoardPrompter;
class BoardQuestions;

struct BoardCheck {
    QString boardName;
    QString connectedAs;  // user@host:port after ssh config resolution
    QString arch, kernel;
    bool agentInstalled = false;
    QString agentNote;  // why there is no probe (no agent yet, old protocol, ...)
    std::optional<nlohmann::json> probe;
    int filesUploaded = 0;
    qint64 bytesUploaded = 0;
    double seconds = 0.0;
    // failure
    bool cancelled = false;
    bool hostKeyChanged = false;
    QString error;
};

class BoardJob : public Job {
    Q_OBJECT
public:
    /// Connection questions (host key, secrets) go to `questions`.
    BoardJob(std::shared_ptr<BoardQuestions> questions, QObject* parent = nullptr);
    /// Cancels and waits for the worker.
    ~BoardJob() override;
    /// Ignored while busy.
    void testConnection(const BoardEntry& board);
    void deploy(const BoardEntry& board);
    BoardPrompter* prompter() const { return prompter_; }

signals:
    /// Human-readable step ("Connecting to rock5b …", "agent: lib/libnpuwb-engine.so 3.1/5.0 MB"); total 0 = busy.
    void progress(const QString& text, qint64 done, qint64 total);
    void finished(std::shared_ptr<const BoardCheck> result);

private:
    void start(const BoardEntry& board, bool deploy);
    BoardCheck work(const BoardEntry& board, bool deploy);
    void post(const QString& text, qint64 done, qint64 total);

    BoardPrompter* prompter_;
    QFutureWatcher<BoardCheck> watcher_;
};

}  // namespace npuwb::ui
