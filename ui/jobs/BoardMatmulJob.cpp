#include "jobs/BoardMatmulJob.h"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <chrono>
#include <exception>

#include "agent-client/AgentClient.h"
#include "jobs/BoardPrompter.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/Error.h"

namespace npuwb::ui {

namespace {
// The runtime plugin whose matmul kernels the agent runs the sweep on (the one board NPU runtime there is).
constexpr const char* kBoardRuntime = "rknpu";
}  // namespace

BoardMatmulJob::BoardMatmulJob(std::shared_ptr<BoardQuestions> questions, QObject* parent)
    : Job(parent), prompter_(new BoardPrompter(std::move(questions), this)) {
    limit_.setSingleShot(true);
    limit_.setTimerType(Qt::PreciseTimer);  // a coarse timer may fire 5% early: never before the limit said
    connect(&limit_, &QTimer::timeout, this, [this] {
        timedOut_ = true;
        cancel();  // ends the wait and kills the agent, as Cancel does
    });
    connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
        limit_.stop();
        setRunning(false);  // before emitting, so handlers may start the next job
        const Outcome outcome = watcher_.result();
        if (outcome.result)
            emit finished(outcome.result);
        else if (timedOut_)
            emit failed(tr("The sweep on %1 did not finish within its time limit of %2 s and was stopped (the agent "
                           "was ended). Raise Time limit or sweep fewer sizes.")
                             .arg(boardName_)
                             .arg(limitSeconds_),
                         false);
        else if (outcome.cancelled)
            emit cancelled();
        else
            emit failed(outcome.error, isChangedHostKeyError(outcome.error));
    });
}

BoardMatmulJob::~BoardMatmulJob() {
    requestCancel();
    watcher_.waitForFinished();
}

void BoardMatmulJob::start(const BoardEntry& board, const QString& chip, const MatmulBenchOptions& options,
                           int timeLimitSeconds) {
    if (isRunning()) return;
    setRunning(true);
    timedOut_ = false;
    limitSeconds_ = std::max(0, timeLimitSeconds);
    boardName_ = board.name;
    if (limitSeconds_ > 0) limit_.start(std::chrono::seconds(limitSeconds_));
    watcher_.setFuture(QtConcurrent::run([this, board, chipName = chip.toStdString(), options, limit = limitSeconds_] {
        return work(board, chipName, options, limit);
    }));
}

BoardMatmulJob::Outcome BoardMatmulJob::work(const BoardEntry& board, const std::string& chipName,
                                             const MatmulBenchOptions& options, int timeLimitSeconds) {
    Outcome outcome;
    try {
        const ChipProfile chip = findChipProfile(chipName);
        AgentJob job = remote::agentMatmulJob(chip, options, kBoardRuntime);  // refuses a broken profile first
        job.timeLimitSeconds = timeLimitSeconds;  // the agent stops itself too, should the connection be lost
        const BoardLink::Stage showStage = [this](const QString& text, qint64 done, qint64 total) {
            QMetaObject::invokeMethod(this, [this, text, done, total] { emit stage(text, done, total); },
                                      Qt::QueuedConnection);
        };
        const remote::AgentInstall install = link_.connectWithAgent(board, *prompter_, cancelFlag(), showStage);
        remote::AgentEvents events;
        events.progress = [this](const AgentProgress& p) {
            const int done = p.done, total = p.total;
            QMetaObject::invokeMethod(this, [this, done, total] { emit progress(done, total); }, Qt::QueuedConnection);
        };
        showStage(tr("%1: running the sweep on the NPU …").arg(board.name), 0, 0);
        remote::AgentClient agent(link_.session(), install);
        MatmulBenchResult result = agent.runMatmul(job, events);
        result.measuredOn = board.connection.host;  // as npuwb-cli matmul-bench --board names it
        outcome.result = std::make_shared<const MatmulBenchResult>(std::move(result));
    } catch (const Error& e) {
        outcome.cancelled = e.kind() == ErrorKind::Cancelled || cancelRequested();  // e.g. a prompt closed by Cancel
        outcome.error = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        outcome.error = QString::fromStdString(e.what());
    }
    if (!outcome.result) link_.reset();  // a failed or cancelled sweep may have left the connection half-way
    return outcome;
}

}  // namespace npuwb::ui
