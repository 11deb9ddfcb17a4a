#include "jobs/BoardLink.h"

#include "jobs/BoardPrompter.h"
#include "models/Format.h"
#include "ssh/SshSession.h"

namespace npuwb::ui {

BoardLink::BoardLink() = default;

BoardLink::~BoardLink() {
    reset();
}

void BoardLink::reset() {
    deployer_.reset();  // before the session it refers to
    session_.reset();
}

remote::DeployProgressFn BoardLink::uploadProgress(const QString& what, const Stage& stage) const {
    return [board = board_.name, what, stage](const remote::DeployProgress& p) {
        stage(tr("%1: uploading %2 %3 / %4")
                  .arg(board, what, formatBytes(p.bytesDone), formatBytes(p.bytesTotal)),
              p.bytesDone, p.bytesTotal);
    };
}

remote::AgentInstall BoardLink::connectWithAgent(const BoardEntry& board, BoardPrompter& prompter,
                                                 const std::atomic<bool>* cancel, const Stage& stage) {
    if (!session_ || !session_->connected() || !(board_ == board)) {
        reset();
        const QString host = QString::fromStdString(board.connection.host);
        stage(tr("Connecting to %1 (%2) …").arg(board.name, host), 0, 0);
        session_ = connectBoard(board, prompter, cancel);
        deployer_ = std::make_unique<remote::Deployer>(*session_);
        board_ = board;
    }
    stage(tr("%1: checking the agent …").arg(board.name), 0, 0);
    return deployer_->deployAgent(uploadProgress(tr("the agent"), stage));
}

}  // namespace npuwb::ui
