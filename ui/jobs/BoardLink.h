#pragma once
// The board connection a job keeps on its worker thread: connect (host-key and secret questions through
// BoardPrompter) unless already connected to that very board, then make sure the agent is installed (uploading only
// what differs). RemoteRunJob and BoardMatmulJob share it; only the worker touches it. After a failure or a cancel
// the job calls reset(): the connection may be half-way.
#include <QCoreApplication>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

#include "deploy/Deployer.h"
#include "models/BoardSettings.h"

namespace npuwb::remote {
class SshSession;
}

namespace npuwb::ui {

class BoardPrompter;

class BoardLink {
    Q_DECLARE_TR_FUNCTIONS(BoardLink)

public:
    /// Connecting, checking, uploading: text for the status bar; total 0 = no measurable progress.
    using Stage = std::function<void(const QString& text, qint64 done, qint64 total)>;

    BoardLink();
    ~BoardLink();

    /// Connects to `board` when not connected to it already (a cancelled `cancel` ends any wait), then deploys the
    /// agent. Throws npuwb::Error.
    remote::AgentInstall connectWithAgent(const BoardEntry& board, BoardPrompter& prompter,
                                          const std::atomic<bool>* cancel, const Stage& stage);
    /// Upload progress of `what` ("the model") as stage texts naming the board.
    remote::DeployProgressFn uploadProgress(const QString& what, const Stage& stage) const;

    remote::SshSession& session() const { return *session_; }
    remote::Deployer& deployer() const { return *deployer_; }
    void reset();

private:
    BoardEntry board_;
    std::unique_ptr<remote::SshSession> session_;
    std::unique_ptr<remote::Deployer> deployer_;
};

}  // namespace npuwb::ui
