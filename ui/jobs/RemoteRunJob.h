#pragma once
// Profiles the open model on a saved board, on a worker thread: connect (prompts through BoardPrompter), deploy
// the agent and the model (cached on the board by content hash: a warm run uploads nothing), run it through
// `npuwb-agent run`, and hand back the board's report, which the window shows like a local one. Live: deploy
// progress, warm-up/run progress and telemetry samples. The connection is kept for the next run on the same
// board. Cancel stops the wait at once and kills the agent on the board.
#include <QFutureWatcher>
#include <QString>

#include <atomic>
#include <memory>

#include "jobs/BoardLink.h"
#include "jobs/Job.h"
#include "models/BoardSettings.h"
#include "models/Telemetry.h"
#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"
#include "npuwb/Profiler.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::ui {

class BoardPrompter;
class BoardQuestions;

struct RemoteRunRequest {
    BoardEntry board;
    QString modelPath;                            // the file the user opened (uploaded when `edited` is null)
    std::shared_ptr<const Model> edited;          // set: the model was changed by passes; this is what runs
    RunOptions options;                           // runs, warm-up, threads, backend ("auto": the agent picks)
    /// Set for a compiled model (.rknn): the board's runtime plugin runs the file with `modelRun`, not `options`.
    QString runtime;
    ModelRunOptions modelRun;
};

class RemoteRunJob : public Job {
    Q_OBJECT
public:
    /// Connection questions (host key, secrets) go to `questions`.
    RemoteRunJob(std::shared_ptr<BoardQuestions> questions, QObject* parent = nullptr);
    ~RemoteRunJob() override;
    void start(const RemoteRunRequest& request);
    BoardPrompter* prompter() const { return prompter_; }

signals:
    /// Connecting, deploying, starting: text for the status bar; total 0 = no measurable progress.
    void stage(const QString& text, qint64 done, qint64 total);
    /// phase is "warm-up" or "run" (as ProfileJob).
    void progress(const QString& phase, int done, int total);
    void telemetry(const TelemetrySample& sample);
    void finished(std::shared_ptr<const Report> report);
    void cancelled();
    /// hostKeyChanged: the board's host key differs from known_hosts (show the warning, not a plain error).
    void failed(const QString& message, bool hostKeyChanged);

private:
    struct Outcome {
        std::shared_ptr<const Report> report;
        bool cancelled = false;
        QString error;
    };
    Outcome work(const RemoteRunRequest& request);
    void postStage(const QString& text, qint64 done, qint64 total);

    BoardPrompter* prompter_;
    QFutureWatcher<Outcome> watcher_;
    BoardLink link_;  // the worker's connection, reused by the next run on the same board
};

}  // namespace npuwb::ui
